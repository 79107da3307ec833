import type { Edge } from '../core/edge.ts';
import type { EdgeFactory } from '../core-app.ts';
import { createInboxRepo, type InboxRepo } from '../store/inbox-repo.ts';
import { createTelegramAdapter } from './adapter.ts';
import { TELEGRAM_PLATFORM } from './channel.ts';
import { createTelegramGate } from './gate.ts';
import { idIn, idOut } from './ids.ts';

export interface TelegramEdgeOptions {
  token: string;
  apiRoot: string;
  allowedUserIds: readonly number[];
  /** The webhook's secret, when it runs in webhook mode (kept out of logs). */
  webhookSecret?: string | undefined;
}

/** What the ingress needs once the edge is connected. */
export interface TelegramParts {
  adapter: ReturnType<typeof createTelegramAdapter>;
  /** The durable inbox (`inbound_updates`): updates are stored there before they are handled. */
  inbox: InboxRepo;
}

/**
 * Telegram as an edge of the core: its channel and file source, its allowlist gate, and
 * its acknowledgement — an update's inbox row marked done, in the reply's transaction.
 * Origins are `tg` with keys `update:<update_id>`. `parts` is there once the core has
 * connected it.
 */
export function telegramEdge(options: TelegramEdgeOptions) {
  let parts: TelegramParts | undefined;
  const factory: EdgeFactory = {
    secrets: [options.token, options.webhookSecret],
    connect: ({ log, clock, db }): Edge => {
      const adapter = createTelegramAdapter({
        token: options.token,
        apiRoot: options.apiRoot,
        log,
      });
      const inbox = createInboxRepo(db);
      parts = { adapter, inbox };
      return {
        platform: TELEGRAM_PLATFORM,
        channel: adapter.channel,
        files: adapter.files,
        gate: createTelegramGate({ allowedUserIds: options.allowedUserIds, clock, log }),
        // The first allowed id owns the bot; with no allowlist nobody could press.
        owner: idIn(options.allowedUserIds[0] ?? 0),
        // Telegram's private chats have positive ids (the user's own), groups negative ones.
        chatType: (address) => (idOut(address.chatId) > 0 ? 'private' : 'supergroup'),
        acknowledge: (keys, now) => inbox.markDone(keys.map(updateIdOf), now),
      };
    },
  };
  return {
    factory,
    get parts(): TelegramParts {
      if (!parts) throw new Error('the Telegram edge is not connected yet');
      return parts;
    },
  };
}

/** The update id of an origin key `update:<id>`. */
const updateIdOf = (key: string): number => Number(key.slice('update:'.length));
