import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { EdgeConversation, EdgeConversations } from '../core/edge-conversations.ts';
import { redactSecretShapes } from '../core/redact.ts';
import type { Address } from '../core/types.ts';
import { WEB_PLATFORM } from './channel.ts';

/** What a conversation is called until the owner names it or types its first line. */
export const NEW_TITLE = 'New conversation';
/** The most a title holds; a longer one is cut (a first line) or refused (a rename). */
export const MAX_TITLE_CHARS = 80;
/** How many conversations the owner may make in a minute (SPEC §16): a rate, not a count. */
export const NEW_PER_MINUTE = 30;
const MINUTE_MS = 60_000;

/** A conversation as the page lists it. */
export interface ConversationView {
  id: string;
  title: string;
  updatedAt: number;
  pinned: boolean;
}

const viewOf = ({ id, title, updatedAt, pinned }: EdgeConversation): ConversationView => ({
  id,
  title,
  updatedAt,
  pinned,
});

/** The address of conversation `id`: its own pack, session, history and jobs. */
export const addressOf = (id: string): Address => ({ platform: WEB_PLATFORM, chatId: id });

/**
 * The web chat's conversations (SPEC §16), as forum topics are on Telegram: each has an id
 * of the edge's own (`w-` and 16 hex digits), never the owner's Telegram id, so changing
 * ALLOWED_USER_IDS keeps every one with its pack and history. There is always one: the
 * most recently used is where a page without a choice goes, made when there is none.
 */
export function createConversations(store: EdgeConversations, clock: Clock) {
  /** When the owner's last conversations were made (within the last minute), oldest first. */
  const made: number[] = [];

  function create(): EdgeConversation {
    const now = clock.now();
    const conversation: EdgeConversation = {
      id: `w-${randomBytes(8).toString('hex')}`,
      title: NEW_TITLE,
      titled: false,
      modelTitled: false,
      pinned: false,
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    store.create(conversation);
    return conversation;
  }

  return {
    /**
     * A new, empty one the owner asked for ("New conversation"); undefined when NEW_PER_MINUTE
     * were made in the last minute. Only the rate is bounded: the owner may keep any number.
     */
    make(): EdgeConversation | undefined {
      const now = clock.now();
      while (made.length > 0 && made[0]! <= now - MINUTE_MS) made.shift();
      if (made.length >= NEW_PER_MINUTE) return undefined;
      made.push(now);
      return create();
    },
    /** The conversation `id`, unless there is none or it was deleted. */
    get(id: string): EdgeConversation | undefined {
      const found = store.get(id);
      return found && found.deletedAt === null ? found : undefined;
    },

    /**
     * Every conversation, the pinned first, then the most recently used (one is made when
     * there is none).
     */
    list(): ConversationView[] {
      const all = store.list();
      return (all.length > 0 ? all : [create()]).map(viewOf);
    },

    /** Pins or unpins it; false when there is no such one. */
    pin: (id: string, pinned: boolean) => store.pin(id, pinned),

    /** The conversation a page opens without naming one: the most recently used. */
    current(): EdgeConversation {
      const all = store.list();
      // Pinned ones lead the list, but the page opens the one used last.
      const latest = all.reduce<EdgeConversation | undefined>(
        (best, c) => (best && best.updatedAt >= c.updatedAt ? best : c),
        undefined,
      );
      return latest ?? create();
    },

    /** Names it; false when the title is blank or too long, or there is no such one. */
    rename(id: string, title: string): boolean {
      const named = title.trim().replace(/\s+/g, ' ');
      if (named === '' || named.length > MAX_TITLE_CHARS) return false;
      return store.rename(id, named, true);
    },

    /**
     * The owner sent something here (`text`: a typed line): it moves to the top, and a line
     * that is not a command names a conversation still called "New conversation".
     */
    used(id: string, text?: string): void {
      store.touch(id, clock.now());
      const found = store.get(id);
      // Redacted before it is cut: half a pasted key no longer has a key's shape. The store
      // redacts what it keeps again (the configured secrets too).
      const line = text && redactSecretShapes(text).trim().replace(/\s+/g, ' ');
      if (!found || found.titled || found.title !== NEW_TITLE || !line || line.startsWith('/'))
        return;
      const title = line.length > 60 ? `${line.slice(0, 59)}…` : line;
      store.rename(id, title, false);
    },
  };
}

export type Conversations = ReturnType<typeof createConversations>;
