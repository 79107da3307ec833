import { PassThrough, Writable } from 'node:stream';
import type { CliIo } from '../../src/core/cli-io.ts';

/** A CliIo that records what a command writes; `env` and `cwd` as given. */
export function recordingIo(
  env: Record<string, string | undefined>,
  cwd: string,
): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  return {
    stdin: new PassThrough(),
    stdout: sink((t) => {
      out += t;
    }),
    stderr: sink((t) => {
      err += t;
    }),
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
