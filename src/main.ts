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
  const app = createApp(config);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ event: 'signal', signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
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
