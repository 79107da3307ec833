import type { Edge, EdgeConfig, EdgeFactory, EdgeModule } from '../core/edge.ts';
import { originKey } from '../core/origin.ts';
import type { Address } from '../core/types.ts';
import { createWebChannel, TRANSCRIPT_LIMIT, WEB_PLATFORM } from './channel.ts';
import { createDeletions } from './conversation-deletion.ts';
import { createConversationRoutes } from './conversation-routes.ts';
import { addressOf, createConversations } from './conversations.ts';
import { createChatRoutes } from './http.ts';
import { createWebInput } from './input.ts';
import { createModelRoutes } from './model-routes.ts';
import { nameByModel } from './model-titles.ts';
import { loadChatPage } from './page.ts';
import { acknowledgeUploads, createPendingUploads } from './pending-uploads.ts';
import { createRedo } from './redo.ts';
import { createUploadStore } from './uploads.ts';
import { welcomeOf } from './welcome.ts';

/** The web chat in the edge list (src/edges.ts): it reads no variable of its own. */
export const web: EdgeModule = {
  platform: WEB_PLATFORM,
  source: 'web',
  variables: [],
  create: (config) => webEdge(config),
};

/**
 * The sender of what is typed: whoever holds the dashboard's token, the owner (SPEC §19),
 * every conversation's one participant. An id of the web chat's own, as the terminal's is.
 */
const WEB_SENDER = 'owner';

/**
 * The web chat (SPEC §16) as an edge of the core: private conversations of its own, each
 * `{platform: 'web', chatId: <its id>}` (conversations.ts: `w-…`, kept in
 * `web_conversations`, never derived from ALLOWED_USER_IDS), its channel
 * (channel.ts), its FileSource — the files sent from the page, kept by uploads.ts in
 * SATCHEL_HOME/media/web/<conversation> — its acknowledgement — the input's `edge_inbox` row
 * marked done in the reply's transaction, and its uploads settled (pending-uploads.ts) — and
 * its ingress: the routes the dashboard mounts, and the replay of
 * what an earlier run left unanswered. There is no gate: the dashboard's token admits only
 * the owner.
 */
export function webEdge(
  config: Pick<EdgeConfig, 'home'>,
  options: { undoMs?: number } = {},
): EdgeFactory {
  return {
    platform: WEB_PLATFORM,
    name: 'the web chat',
    // Its turns are `web` in the ledger's recent turns (SPEC §7).
    source: 'web',
    connect: ({ log, clock, inboxes, conversations: store }): Edge => {
      const conversations = createConversations(store, clock);
      const uploads = createUploadStore(config.home);
      const pending = createPendingUploads(uploads);
      const deletions = createDeletions({ store, uploads, clock, log, ...options });
      const channel = createWebChannel(() => clock.now(), {
        // Voice notes (spoken answers) are kept beside the uploads: the page plays them there.
        keep: (data, ext) => uploads.save(data, ext),
        // A conversation's page starts from what its sessions keep (SPEC §16: it survives a restart).
        stored: (to) => store.history(to, TRANSCRIPT_LIMIT),
      });
      const inbox = inboxes.keyed(WEB_PLATFORM);
      /** Each input of this run's conversation, until it is answered. */
      const asked = new Map<string, Address>();
      const settle = acknowledgeUploads(inbox, pending);
      return {
        platform: WEB_PLATFORM,
        channel,
        // The files the owner sends: the media pipeline fetches them from here.
        files: uploads,
        // Answered: what it sent waits no more, and what nothing shows is removed. A failed
        // turn's error line is kept beside the history, after the owner's last message.
        acknowledge: (keys, now, failure) => {
          settle(keys, now);
          const last = new Map<string, { key: string; to: Address }>();
          for (const key of keys) {
            const to = asked.get(key);
            asked.delete(key);
            if (to) last.set(to.chatId, { key, to });
          }
          if (failure === undefined) return;
          for (const { key, to } of last.values()) {
            const source = originKey({ platform: WEB_PLATFORM, keys: [key] });
            store.failed(to.chatId, source, failure, now);
            channel.failing(to, source);
          }
        },
        ingress: (port) => {
          const input = createWebInput({
            senderId: WEB_SENDER,
            resolve: (stored) =>
              stored?.platform === WEB_PLATFORM && conversations.get(stored.chatId)
                ? addressOf(stored.chatId)
                : addressOf(conversations.current().id),
            used: (address, text) => conversations.used(address.chatId, text),
            channel,
            inbox,
            clock,
            log,
            accept: port.accept,
            full: port.full,
            holds: pending.hold,
            entered: (key, address) => asked.set(key, address),
          });
          // The model names a conversation after its first exchange; its pages learn it.
          nameByModel({
            port,
            store,
            log,
            titled: (id, title) => channel.conversation(addressOf(id)).titled(title),
          });
          const routes = createChatRoutes({
            conversations,
            manage: createConversationRoutes({ conversations, deletions, store, clock }),
            models: createModelRoutes({ conversations, port, input }),
            channel,
            input,
            uploads,
            pending,
            assets: loadChatPage(),
            log,
            welcome: (id) =>
              welcomeOf(
                port.packs(),
                port.menu(),
                port.activePack(addressOf(id)),
                port.defaultPack?.(),
              ),
            voiceInput: () => port.transcribes(),
            redo: createRedo({ channel, input, store, now: () => clock.now(), log }),
          });
          const ready = () => {
            // Uploads live as long as their conversation: those of one gone are removed.
            const removed = uploads.sweep((id) => conversations.get(id) !== undefined);
            if (removed > 0)
              log.info(
                { event: 'web_uploads_removed', count: removed },
                'uploads of gone conversations removed',
              );
            deletions.resume();
            input.replay();
          };
          return { mounts: [routes], ready, stop: async () => deletions.stop() };
        },
      };
    },
  };
}
