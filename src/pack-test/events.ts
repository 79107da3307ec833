import type { Address, InboundEvent } from '../core/types.ts';
import type { ShownKeyboard } from './channel.ts';

/** What a turn of a pack test sends, as the test chat's edge would: who, where and when. */
export interface TurnPlace {
  address: Address;
  /** The turn's number (from 1): its origin key, so each event is acknowledged once. */
  turn: number;
  at: number;
}

/** `/name args` at the start of a message, as the terminal reads a command. */
const COMMAND = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/;

/** The user's message: a command (`/review`) as a command, like the bot's edges send it. */
export function messageEvent(text: string, place: TurnPlace): InboundEvent {
  const command = COMMAND.exec(text.trim());
  return {
    ...meta(place),
    ...(command
      ? { kind: 'command' as const, command: command[1]!.toLowerCase(), args: command[2] ?? '' }
      : { kind: 'text' as const, text }),
  };
}

/**
 * A press of the button labelled `label` on `shown`: the callback event a real press of it
 * is, carrying the button's own data, so it takes the path every press takes (an
 * `ask_user` answer, an action, a keyboard's text). A label that is not there is an Error
 * whose message lists the labels that are.
 */
export function pressEvent(
  label: string,
  shown: ShownKeyboard | undefined,
  place: TurnPlace,
): InboundEvent {
  if (!shown)
    throw new Error(`press ${JSON.stringify(label)}: the bot sent no message with buttons`);
  const button = shown.buttons.find((b) => b.text === label);
  if (!button) {
    const labels = shown.buttons.map((b) => JSON.stringify(b.text)).join(', ');
    throw new Error(
      `press ${JSON.stringify(label)}: no such button on the last message with buttons (${JSON.stringify(firstLine(shown.text))}); its buttons are ${labels}`,
    );
  }
  return {
    ...meta(place),
    messageId: shown.messageId,
    kind: 'callback',
    callbackId: `press-${place.turn}`,
    data: button.data,
  };
}

function meta(place: TurnPlace) {
  return {
    origin: { platform: place.address.platform, keys: [`turn-${place.turn}`] },
    address: place.address,
    chatType: 'private' as const,
    senderId: '1',
    receivedAt: place.at,
  };
}

const firstLine = (text: string) => {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
};
