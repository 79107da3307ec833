import { type ChildProcess, spawn } from 'node:child_process';

/** A child process whose output is kept for the test to read. */
export interface Captured {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/**
 * Runs `node <args>` in `cwd` with only `env`, keeping stdout and stderr. `onCleanup` gets
 * what kills it after the test if it is still running.
 */
export function spawnNode(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin: 'pipe' | 'ignore' },
  onCleanup: (cleanup: () => Promise<void>) => void,
): Captured {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin, 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}
