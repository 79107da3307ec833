import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createApp, NoWayIn } from './app.ts';
import { type Config, loadEnv } from './config/config.ts';
import { formatEnvProblem, lintEnvFile } from './config/env-lint.ts';
import { systemClock } from './core/clock.ts';
import type { EdgeFactory } from './core/edge.ts';
import { ConfigError } from './core/errors.ts';
import { watchParent } from './core/parent-watch.ts';
import { configure, edgeVariables } from './edges.ts';
import { startHelp } from './start-help.ts';
import type { ModelCatalog } from './usage/catalog.ts';
import { loadModelCatalog } from './usage/catalog-file.ts';

/** Exit codes of a forced exit (a third signal): 128 + the signal's number, as shells do. */
const FORCED_EXIT_CODE: Record<ShutdownSignal, number> = { SIGINT: 130, SIGTERM: 143 };
type ShutdownSignal = 'SIGINT' | 'SIGTERM';

/**
 * The entry point: configuration first (fail fast), then signal handling, then the app.
 * The first SIGINT/SIGTERM stops gracefully, also while start-up is still trying to reach
 * Telegram. One more signal during that drain is ignored: a wrapper such as `npm start`
 * passes Ctrl-C on to us while the terminal sends it too, so one press arrives twice. The
 * signal after that exits at once with a non-zero code. A parent that goes away (npm killed
 * on its own pid) starts the same drain.
 */
async function main(): Promise<void> {
  answerArguments();
  let config: Config;
  let catalog: ModelCatalog;
  // Read before the configuration: a mistyped name in .env often is why it is invalid.
  const envFileProblems = lintEnvFile(process.cwd(), edgeVariables());
  let edges: EdgeFactory[];
  try {
    // Each edge reads and checks its own variables: a bad one stops the start with the core's.
    ({ config, edges } = configure(loadEnv()));
    catalog = loadModelCatalog(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const hints = envFileProblems.map((p) => `\n  ${formatEnvProblem(p)}`).join('');
    process.stderr.write(`satchel: ${error.message}${hints}\n`);
    process.exit(1);
  }
  let stopping = false;
  // Polling that stopped for good leaves nothing to do: exit non-zero so a supervisor sees it.
  const app = appOrExit(() =>
    createApp(config, {
      catalog,
      edges: () => edges,
      envFileProblems,
      onFatal: () => shutdown('polling stopped', 1),
    }),
  );
  const shutdown = (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ event: 'signal', signal: reason }, 'shutting down');
    app.stop().then(
      () => process.exit(code),
      (error: unknown) => {
        app.log.error({ event: 'shutdown_failed', err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  let ignoredOne = false;
  const onSignal = (signal: ShutdownSignal) => {
    if (!stopping) {
      shutdown(signal);
      return;
    }
    if (!ignoredOne) {
      ignoredOne = true;
      app.log.warn(
        { event: 'shutdown_signal_ignored', signal },
        `${signal} again: still stopping (one more exits at once)`,
      );
      return;
    }
    app.log.warn({ event: 'shutdown_forced', signal }, `${signal} again: exiting now`);
    process.exit(FORCED_EXIT_CODE[signal]);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  watchParent({
    clock: systemClock,
    ppid: () => process.ppid,
    onGone: (from, to) => {
      app.log.warn({ event: 'parent_exited', from, to }, 'parent process exited: stopping');
      shutdown('parent exited');
    },
  });
  try {
    await app.start();
  } catch (error) {
    // Nothing to serve: say so on the console and exit 1, so a supervisor sees it.
    if (!(error instanceof NoWayIn)) throw error;
    process.stderr.write(`satchel: ${error.message}\n`);
    shutdown('no way in', 1);
  }
}

/**
 * The app, or exit 1 with the reason when what the configuration names is not there (a
 * DEFAULT_PACK of no loaded pack): the problem is the owner's to fix, not a crash.
 */
function appOrExit(build: () => ReturnType<typeof createApp>): ReturnType<typeof createApp> {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`satchel: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Arguments given to the entry point itself (`npm start -- --help`): help is printed, and
 * anything else is refused rather than ignored while the bot starts. Loaded by
 * `satchel start`, whose arguments the CLI has already checked, this looks at nothing.
 */
function answerArguments(): void {
  const entry = process.argv[1];
  if (entry === undefined || realpathSync(entry) !== fileURLToPath(import.meta.url)) return;
  const args = process.argv.slice(2);
  if (args.length === 0) return;
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${startHelp('npm start')}\n`);
    process.exit(0);
  }
  process.stderr.write(`satchel: npm start takes no arguments (got ${args.join(' ')})\n`);
  process.exit(2);
}

await main();
