import { createChat } from '../chat-app.ts';
import { type CoreConfig, parseConfig } from '../config/config.ts';
import { withEnvFile } from '../config/env-file.ts';
import { ConfigError } from '../core/errors.ts';
import { styleFor } from '../terminal/tty.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { loadModelCatalog } from '../usage/catalog-file.ts';
import { noMoreThan, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: npx satchel chat [--pack NAME]

Talk to your packs in the terminal, with the configured model and no Telegram token:
the same pipeline as a Telegram chat (routing, the pack's tools, the quota gate, the
ledger). The conversation has its own address (local), so it can run while the bot runs
on the same SATCHEL_HOME. It is how a pack author tries a pack.

Options:
  -p, --pack NAME  talk to this pack (its name or display name); without it, the pack
                   chosen last time, the only one installed, or a numbered choice

In the chat: /help lists the commands, /new starts a fresh session, and when numbered
options are shown, typing a number chooses one. Ctrl-C stops the answer in progress;
Ctrl-C twice or /exit leaves; Ctrl-D (end of input) lets the answer finish and quits. On a
terminal the prompt and notes are coloured (not when piped, nor with NO_COLOR set). Logs
go to SATCHEL_HOME/logs/chat.log.

Exit codes: 0 after the end of input, 1 bad configuration or unknown pack, 2 bad
arguments.`;

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
  path: ['chat'],
  summary: 'talk to your packs in the terminal (no Telegram token needed)',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      pack: { type: 'string', short: 'p' },
    });
    noMoreThan(positionals, 0);
    let config: CoreConfig;
    let catalog: ModelCatalog;
    try {
      config = parseConfig(withEnvFile(io.env, io.cwd), { telegram: false });
      catalog = loadModelCatalog(config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.stderr.write(`satchel chat: ${error.message}\n`);
      return 1;
    }
    const chat = createChat(config, {
      catalog,
      input: io.stdin,
      output: io.stdout,
      errors: io.stderr,
      style: styleFor(io.stdout as { isTTY?: boolean }, io.env),
      ...(values.pack === undefined ? {} : { pack: values.pack }),
    });
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
