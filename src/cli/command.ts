/** What a CLI command may touch: its streams, environment and working directory. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * One `satchel` subcommand. `path` is the words that select it (`['usage']`,
 * `['pack', 'new']`); `run` gets the arguments after them and resolves with the exit code.
 */
export interface CliCommand {
  path: string[];
  /** One line for `satchel --help`. */
  summary: string;
  /** The whole `--help` text of the command. */
  help: string;
  run(args: string[], io: CliIo): Promise<number>;
}
