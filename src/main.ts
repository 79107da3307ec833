import { createApp } from './app.ts';
import { loadConfig } from './config/config.ts';
import { ConfigError } from './core/errors.ts';

/** The entry point: configuration first (fail fast), then the app, then signal handling. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`satchel: ${error.message}\n`);
    process.exit(1);
  }
  let stopping = false;
  // Polling that stopped for good leaves nothing to do: exit non-zero so a supervisor sees it.
  const app = createApp(config, { onFatal: () => shutdown('polling stopped', 1) });
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
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  await app.start();
}

await main();
