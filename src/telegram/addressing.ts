import type { WireMessage } from './update-schema.ts';

/**
 * Who the bot is, as getMe tells it: its user id (also the token's first part) and its
 * username, which mentions and addressed commands name. Before getMe has answered (a replay
 * at start) the username is unknown: then every mention and every command counts as the bot's.
 */
export interface BotIdentity {
  id: number;
  username?: string | undefined;
}

/** The bot's id, from its token (`<id>:<secret>`), known before any call. */
export function botIdFromToken(token: string): number {
  return Number(token.split(':')[0]);
}

type Entity = NonNullable<WireMessage['entities']>[number];

/**
 * The bot a command names (`/help@satchel_bot` → `satchel_bot`), undefined for a bare one.
 * `entity` is the command's entity at offset 0.
 */
export function commandTarget(text: string, entity: Entity): string | undefined {
  const at = text.slice(1, entity.length).split('@')[1];
  return at === undefined || at === '' ? undefined : at;
}

/** Whether a command's `@target` is another bot (unknown username: it is taken as ours). */
export function isForAnotherBot(target: string | undefined, bot: BotIdentity | undefined): boolean {
  if (target === undefined || bot?.username === undefined) return false;
  return target.toLowerCase() !== bot.username.toLowerCase();
}

/**
 * Whether a group message speaks to the bot (SPEC §12): it mentions it (`@username`, or a
 * `text_mention` of its id), replies to one of its messages, or is a command (commands for
 * other bots never get this far).
 */
export function isAddressed(message: WireMessage, bot: BotIdentity | undefined): boolean {
  if (!bot) return true;
  const text = message.text ?? message.caption ?? '';
  const entities = message.text !== undefined ? message.entities : message.caption_entities;
  for (const entity of entities ?? []) {
    if (entity.type === 'bot_command' && entity.offset === 0) return true;
    if (entity.type === 'text_mention' && entity.user?.id === bot.id) return true;
    if (entity.type === 'mention') {
      // Before getMe (a replay at start) any mention may be the bot's: answering one too
      // many after a crash beats losing a message that was meant for it.
      if (bot.username === undefined) return true;
      const name = text.slice(entity.offset + 1, entity.offset + entity.length);
      if (name.toLowerCase() === bot.username.toLowerCase()) return true;
    }
  }
  return message.reply_to_message?.from?.id === bot.id;
}

/** How a sender is called: first and last name, else the username. */
export function nameOf(from: {
  first_name?: string | undefined;
  last_name?: string | undefined;
  username?: string | undefined;
}): string | undefined {
  const name = [from.first_name, from.last_name].filter(Boolean).join(' ').trim();
  return name || from.username || undefined;
}
