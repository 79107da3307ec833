import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { CoreConfig } from './config/config.ts';
import { background } from './core/background.ts';
import { decodeButton } from './core/button-data.ts';
import { sleep } from './core/clock.ts';
import { addressKey } from './core/types.ts';
import { type CoreOptions, createCore } from './core-app.ts';
import { privateLog } from './logging/private-log.ts';
import { createTerminalChannel, LOCAL_ADDRESS, type ShownOptions } from './terminal/channel.ts';
import { terminalEdge } from './terminal/edge.ts';
import { createPromptedOutput, PLAIN_STYLE, type TerminalStyle } from './terminal/tty.ts';

export interface ChatOptions extends CoreOptions {
  /** Lines typed by the user. */
  input: NodeJS.ReadableStream;
  /** The conversation. */
  output: NodeJS.WritableStream;
  /** Problems that stop the chat before it starts. */
  errors: NodeJS.WritableStream;
  /** The pack (name or display name) the conversation is bound to at start. */
  pack?: string;
  /** Colour and a prompt (on a terminal: tty.ts styleFor); plain text without. */
  style?: TerminalStyle;
}

/** How to leave, said at the start. */
export const LEAVE_HINT =
  '/help lists the commands. Ctrl-C stops an answer; press it twice, type /exit or press Ctrl-D to leave.';

/** Options of an `ask_user` question: nobody can answer them once the input has ended. */
const isQuestion = (options: ShownOptions) =>
  options.buttons.some((b) => decodeButton(b.data)?.type === 'ask');

/**
 * `satchel chat` (SPEC §10): the core (core-app.ts) on a terminal channel, fed by the lines
 * of `input`. The conversation's address is `local:1`, so it can run beside the bot on the
 * same SATCHEL_HOME. Logs go to SATCHEL_HOME/logs/chat.log: the terminal is the conversation.
 */
export function createChat(config: CoreConfig, options: ChatOptions) {
  const style = options.style ?? PLAIN_STYLE;
  const screen = createPromptedOutput((text) => options.output.write(text), style.prompt);
  const terminal = createTerminalChannel((text) => screen.write(text), style);
  const logDestination =
    options.logDestination ?? privateLog(path.join(config.home, 'logs'), 'chat.log');
  let quit: () => void = () => {};
  const quitting = new Promise<'quit'>((resolve) => {
    quit = () => resolve('quit');
  });
  const edge = terminalEdge(terminal, { exit: () => quit() });
  const core = createCore(config, [edge.factory], { ...options, logDestination });
  const { input } = edge;
  let inputEnded = false;
  // A question shown once the input has ended can never be answered: stop its turn.
  terminal.onOptions = (shown) => {
    if (inputEnded && isQuestion(shown)) input.command('stop');
  };
  // A question waits inside its turn: once the turn has ended (the question expired, or was
  // answered elsewhere), its options go, so a `y` or a number typed next is text, not a
  // press of a question nobody waits for.
  core.events.on('turn_completed', ({ address }) => {
    const shown = terminal.options;
    if (addressKey(address) === addressKey(LOCAL_ADDRESS) && shown && isQuestion(shown))
      terminal.dropOptions();
  });

  /** Binds `--pack`; false (and a message) when no such pack is installed. */
  function bind(name: string): boolean {
    const pack = core.packs.get(name) ?? core.packs.byLabel(name);
    if (pack) {
      core.router.resolve(LOCAL_ADDRESS, pack.name, 'pick');
      return true;
    }
    const installed = core.packs.list().map((p) => p.name);
    options.errors.write(
      `satchel chat: there is no pack "${name}". ` +
        (installed.length > 0
          ? `Installed: ${installed.join(', ')}.\n`
          : `No packs are installed (SATCHEL_PACKS: ${config.packDirs.join(', ')}).\n`),
    );
    return false;
  }

  function banner(): void {
    const active = core.router.activePack(LOCAL_ADDRESS);
    const pack = active ? core.packs.get(active) : undefined;
    const using = pack
      ? `${pack.displayName} (${pack.name})`
      : core.packs.list().length === 0
        ? 'no packs installed'
        : 'no pack chosen yet';
    const model = pack?.manifest.model ?? `${core.model.provider}:${core.model.model}`;
    terminal.note(`satchel chat · ${using} · ${model}`);
    terminal.note(LEAVE_HINT);
  }

  /** The input ended: what was typed is answered (a question nobody can answer is stopped). */
  async function drain(): Promise<void> {
    inputEnded = true;
    if (terminal.options && isQuestion(terminal.options)) input.command('stop');
    // The last lines may wait in the batch window before they reach their turn.
    await sleep(core.clock, config.batchWindowMs);
    await core.pipeline.idle();
  }

  return {
    /**
     * Runs the conversation until the input ends (every line answered, then a clean
     * shutdown) or `quit`. Resolves with the exit code.
     */
    async run(): Promise<number> {
      if (options.pack !== undefined && !bind(options.pack)) {
        await core.stop(async () => {});
        return 1;
      }
      banner();
      background(core.log, 'outbox_resume_failed', core.outbox.resumeUnsent());
      core.ingresses.ready();
      // The terminal's lines are read below; the job edge starts the scheduler.
      await core.ingresses.start();
      const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
      const ended = once(lines, 'close').then(() => 'ended' as const);
      lines.on('line', (line) => {
        screen.lineTyped(line.trim() === '');
        input.line(line);
      });
      // Several packs and none bound yet: the picker, before the first question.
      if (!core.router.activePack(LOCAL_ADDRESS)) input.command('pack');
      if ((await Promise.race([ended, quitting])) === 'ended')
        await Promise.race([drain(), quitting]);
      await core.stop(async () => lines.close());
      return 0;
    },

    /** Ctrl-C: stops the answer in progress, as /stop does. */
    interrupt(): void {
      // A terminal shows `^C` where the cursor is.
      if ((options.output as { isTTY?: boolean }).isTTY) terminal.echoed();
      input.command('stop');
    },

    /** Shuts down without waiting for the input to end (running turns get the grace time). */
    quit: () => quit(),
  };
}

export type Chat = ReturnType<typeof createChat>;
