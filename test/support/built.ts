import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = import.meta.resolve('tsx');

/**
 * Node's arguments that start satchel in a child process: the run's build when there is one
 * (test/support/satchel-build.ts, the `process` project's global setup), else the source
 * through tsx (a file run in another project).
 */
function entry(built: string, source: string[]): string[] {
  const dir = inject('satchelBuild');
  return dir ? [path.join(dir, built)] : source;
}

/** `npm start`: the bot. */
export const startArgs = (): string[] =>
  entry('src/main.js', ['--import', TSX, path.join(ROOT, 'src/main.ts')]);

/** `npx satchel`: the CLI. */
export const cliArgs = (): string[] =>
  entry('src/cli/main.js', [path.join(ROOT, 'scripts/satchel.mjs')]);

/** A test fixture run as a child (one of satchel-build.ts's CHILD_FIXTURES), by its path in the repository. */
export const fixtureArgs = (file: string): string[] =>
  entry(file.replace(/\.ts$/, '.js'), ['--import', TSX, path.join(ROOT, file)]);
