import type { CliIo } from '../core/cli-io.ts';

/**
 * What is known of a `satchel` subcommand before its module loads (src/cli/help.ts):
 * `path` is the words that select it (`['usage']`, `['pack', 'new']`).
 */
export interface CliCommandInfo {
  path: string[];
  /** One line for `satchel --help`. */
  summary: string;
  /** The whole `--help` text of the command. */
  help: string;
}

/** One `satchel` subcommand: `run` gets the arguments after its path and resolves with the exit code. */
export interface CliCommand extends CliCommandInfo {
  run(args: string[], io: CliIo): Promise<number>;
}

/**
 * A subcommand in satchel's table (src/cli/commands.ts): its info at once, its module only
 * when it runs, so `--help` and `--version` load no command's work.
 */
export interface LazyCliCommand extends CliCommandInfo {
  load(): Promise<CliCommand>;
}
