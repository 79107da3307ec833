/**
 * What a CLI command may touch: its streams, environment and working directory. Here, below
 * the command line, so that the work a command hands on (setup's session) takes it without
 * importing the CLI.
 */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  cwd: string;
}
