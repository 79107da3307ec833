import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { WAIT_BUDGET_MS } from './test/fakes/wait-budget.ts';

/**
 * Three projects, so one part of the suite can run alone (`npx vitest run --project unit` is
 * the quick loop) and each part runs the way it needs:
 * - `unit`: everything outside test/e2e and test/faults that starts no process of its own,
 *   without isolation (one module graph per worker, reused from file to file);
 * - `unit-isolated`: the unit files that mock a module with `vi.mock`. A mock lives in the
 *   worker's module graph, so without isolation it would leak into the next file, and these
 *   files need a graph in which the module was never loaded (lazy-sdk: "no SDK loaded yet");
 * - `e2e`: test/e2e and test/faults, in process against the fake servers of test/fakes, also
 *   without isolation (each file makes and closes its own app);
 * - `process`: files that start Node processes or Chromium themselves (the CLI, `npm start`,
 *   `npm pack`, db_query's children, MCP process trees, the browser tests).
 * Every file is in exactly one project: `unit` and `e2e` leave out what the others take.
 */

/** Files that start a Node process (the CLI, npm, db_query's children, MCP process trees). */
const PROCESS_FILES = [
  'test/e2e/chat-cli.test.ts',
  'test/e2e/cli-process.test.ts',
  'test/e2e/mcp-process.test.ts',
  'test/e2e/npm-signals.test.ts',
  'test/e2e/pack-add.test.ts',
  'test/e2e/pack-new-chat.test.ts',
  'test/e2e/process.test.ts',
  'test/e2e/setup.test.ts',
  'test/faults/backup-faults.test.ts',
  'test/mcp/orphans.test.ts',
  'test/unit/db-query.test.ts',
  'test/unit/pack-add-consent.test.ts',
  'test/unit/pack-add.test.ts',
  // Every bundled pack's tests, whose db_query calls run in child processes (~25 s).
  'test/unit/pack-test.test.ts',
];
const BROWSER_FILES = 'test/**/*-browser.test.ts';

/** Unit files that mock a module (`vi.mock`): they need a module graph of their own. */
const MOCKING_FILES = [
  'test/mcp/server-exit.test.ts',
  'test/mcp/server-runner.test.ts',
  'test/providers/sdk-load-time.test.ts',
  'test/unit/lazy-sdk-registry.test.ts',
  'test/unit/lazy-sdk.test.ts',
];

for (const file of [...PROCESS_FILES, ...MOCKING_FILES])
  if (!existsSync(new URL(file, import.meta.url)))
    throw new Error(`vitest.config.ts names ${file}, which does not exist`);

const E2E_DIRS = ['test/e2e/**/*.test.ts', 'test/faults/**/*.test.ts'];

/**
 * Each project names its own `include`: a project that extends this file would add its list
 * to one given here, not replace it.
 *
 * Workers for the whole run (all projects share one pool). Most of the suite waits (on fake
 * servers, child processes, timers) rather than computes, so it keeps more workers than
 * cores busy: 3 on 2 cores. SATCHEL_TEST_WORKERS overrides it.
 */
function maxWorkers(): number {
  const asked = Number(process.env.SATCHEL_TEST_WORKERS);
  if (Number.isInteger(asked) && asked > 0) return asked;
  return Math.max(2, Math.ceil(availableParallelism() * 1.5));
}

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // vi.waitFor and expect.poll wait as long as the fakes' waits do
    // (test/fakes/wait-budget.ts), not vitest's 1 s: a busy CI machine took longer.
    setupFiles: ['test/support/setup-waits.ts'],
    expect: { poll: { timeout: WAIT_BUDGET_MS } },
    maxWorkers: maxWorkers(),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          isolate: false,
          exclude: [
            ...configDefaults.exclude,
            ...E2E_DIRS,
            ...PROCESS_FILES,
            BROWSER_FILES,
            ...MOCKING_FILES,
          ],
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: MOCKING_FILES } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E_DIRS,
          // Each file builds its own app on fake servers and closes it; none mocks a module.
          // Without isolation a worker loads the app's modules once, not once per file
          // (the project alone: 157 s → 75 s on 2 cores, the same 563 tests passing).
          isolate: false,
          exclude: [...configDefaults.exclude, ...PROCESS_FILES, BROWSER_FILES],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: [...PROCESS_FILES, BROWSER_FILES],
          // satchel compiled once for the children; one Chromium, each file its own context.
          globalSetup: ['test/support/satchel-build.ts', 'test/support/chromium-server.ts'],
          // A test here starts Node through tsx once or more (seconds of CPU each, 2 s for
          // `satchel --version`), and up to `maxWorkers` such files run at once: on two busy
          // cores one start took 20 s. The budget is for that; what is checked is the same.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
