import { type CoreConfig, parseConfig } from '../config/config.ts';
import { withEnvFile } from '../config/env-file.ts';
import { ConfigError } from '../core/errors.ts';
import { styleFor } from '../terminal/tty.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { loadModelCatalog } from '../usage/catalog-file.ts';
import { noMoreThan, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';
import { chatInfo } from './help.ts';

/** Ctrl-C signals closer together than this are one press. */
const SAME_INTERRUPT_MS = 300;
/** A second Ctrl-C press within this long of the first leaves the chat. */
export const LEAVE_INTERRUPT_MS = 2_000;

/**
 * What a Ctrl-C at `now` (ms) does: one press stops the answer; a second press soon after
 * leaves. Under npx or npm run the child gets each press twice (from the terminal, and
 * forwarded by npm): signals within SAME_INTERRUPT_MS are one press.
 */
export function createInterrupts(chat: { interrupt(): void; quit(): void }) {
  let lastSignal = Number.NEGATIVE_INFINITY;
  let lastPress = Number.NEGATIVE_INFINITY;
  return (now: number): void => {
    const samePress = now - lastSignal < SAME_INTERRUPT_MS;
    lastSignal = now;
    if (samePress) return;
    if (now - lastPress < LEAVE_INTERRUPT_MS) chat.quit();
    else chat.interrupt();
    lastPress = now;
  };
}

/** `satchel chat`: a conversation on stdin and stdout until the input ends. */
export const chatCommand: CliCommand = {
  ...chatInfo,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      pack: { type: 'string', short: 'p' },
    });
    noMoreThan(positionals, 0);
    let config: CoreConfig;
    let catalog: ModelCatalog;
    try {
      config = parseConfig(withEnvFile(io.env, io.cwd));
      catalog = loadModelCatalog(config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.stderr.write(`satchel chat: ${error.message}\n`);
      return 1;
    }
    // The core (models, tools, the database) loads once the configuration holds.
    const { createChat } = await import('../chat-app.ts');
    let chat: ReturnType<typeof createChat>;
    try {
      chat = createChat(config, {
        catalog,
        input: io.stdin,
        output: io.stdout,
        errors: io.stderr,
        style: styleFor(io.stdout as { isTTY?: boolean }, io.env),
        ...(values.pack === undefined ? {} : { pack: values.pack }),
      });
    } catch (error) {
      // A DEFAULT_PACK that names no loaded pack (known once the packs are read).
      if (!(error instanceof ConfigError)) throw error;
      io.stderr.write(`satchel chat: ${error.message}\n`);
      return 1;
    }
    // Ctrl-C stops the answer, twice leaves; SIGTERM ends the chat gracefully.
    const press = createInterrupts(chat);
    const interrupt = () => press(performance.now());
    const terminate = () => chat.quit();
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', terminate);
    try {
      return await chat.run();
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', terminate);
    }
  },
};
