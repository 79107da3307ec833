import { satchel } from './commands.ts';

// `npx satchel` (through scripts/satchel.mjs): the CLI on this process's streams. Only the
// command that runs is loaded (src/cli/commands.ts).
process.exitCode = await satchel(process.argv.slice(2), {
  // Touched only by a command that reads it: opening stdin is not free.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
