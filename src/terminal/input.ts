import type { Clock } from '../core/clock.ts';
import type { Address, InboundEvent, InboundMeta, InboundPayload } from '../core/types.ts';

export interface TerminalInputDeps {
  address: Address;
  clock: Clock;
  /** The pipeline's entry. */
  accept(event: InboundEvent): void;
  /**
   * The option numbered `choice` of those shown last, or the one with that key (`y`, `n`),
   * taken; undefined when there is none.
   */
  choose(choice: number | string): { messageId: string; data: string } | undefined;
  /** How many options are shown and not chosen yet (0 when none). */
  optionCount(): number;
  /** Prints a line of satchel's own (a typed number that names no option). */
  notice(text: string): void;
  /** `/exit` (or `/quit`): leave the chat. */
  exit(): void;
}

/** The one local user, the sender of every line typed. */
const LOCAL_SENDER = '0';

/** Typed to leave the chat; handled here, never sent to the pipeline. */
export const EXIT_COMMANDS: readonly string[] = ['exit', 'quit'];

/** `/name` or `/name@bot`, then the arguments, as Telegram reads a command. */
const COMMAND = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/;

/**
 * Lines typed in the terminal as the pipeline's events, from the one local user (sender 0)
 * in a private conversation: a command (`/new`), a press of a shown option (its number), or
 * text.
 */
export function createTerminalInput(deps: TerminalInputDeps) {
  const { address, clock } = deps;
  let lastSeq = 0;

  /**
   * A line's origin. Its key stores the user's input once, in a table every run shares, so
   * a number is never reused: the time in ms, or one more than the last when lines come
   * faster than that.
   */
  function send(payload: InboundPayload, extra: Pick<InboundMeta, 'messageId'> = {}): void {
    const now = clock.now();
    lastSeq = Math.max(lastSeq + 1, now);
    deps.accept({
      origin: { platform: address.platform, keys: [String(lastSeq)] },
      address,
      chatType: 'private',
      senderId: LOCAL_SENDER,
      receivedAt: now,
      ...extra,
      ...payload,
    });
  }

  return {
    /**
     * Takes one typed line; a blank one is ignored. While options are shown, a number
     * outside them is refused with a notice rather than sent as text.
     */
    line(text: string): void {
      const typed = text.trim();
      if (typed === '') return;
      const number = /^\d{1,3}$/.test(typed) ? Number(typed) : undefined;
      const count = deps.optionCount();
      if (number !== undefined && count > 0 && (number < 1 || number > count)) {
        deps.notice(`There is no option ${number}: type a number from 1 to ${count}.`);
        return;
      }
      const key = /^(y|yes|n|no|a)$/i.exec(typed)?.[1]?.[0]?.toLowerCase();
      const choice =
        number !== undefined ? deps.choose(number) : key ? deps.choose(key) : undefined;
      const command = COMMAND.exec(typed);
      if (command && EXIT_COMMANDS.includes(command[1]!.toLowerCase())) deps.exit();
      else if (choice) {
        const { messageId, data } = choice;
        send({ kind: 'callback', callbackId: `${messageId}:${typed}`, data }, { messageId });
      } else if (command)
        send({ kind: 'command', command: command[1]!.toLowerCase(), args: command[2] ?? '' });
      else send({ kind: 'text', text: typed });
    },

    /** Sends a command as if typed (`stop` on Ctrl-C, `pack` to show the picker). */
    command(name: string): void {
      send({ kind: 'command', command: name, args: '' });
    },
  };
}

export type TerminalInput = ReturnType<typeof createTerminalInput>;
