import path from 'node:path';
import type { Config } from '../config/config.ts';
import type { Edge, EdgeFactory } from '../core/edge.ts';
import type { Address } from '../core/types.ts';
import { createWebChannel, WEB_PLATFORM } from './channel.ts';
import { createChatRoutes } from './http.ts';
import { createWebInput } from './input.ts';
import { loadChatPage } from './page.ts';
import { createUploadStore } from './uploads.ts';
import { welcomeOf } from './welcome.ts';

/**
 * The web chat (SPEC §16) as an edge of the core: one private conversation,
 * `{platform: 'web', chatId: <owner>}` (the first of ALLOWED_USER_IDS, or 1), its channel
 * (channel.ts), its FileSource — the files sent from the page, kept by uploads.ts in
 * SATCHEL_HOME/media/web — its acknowledgement — the input's `edge_inbox` row marked done in
 * the reply's transaction — and its ingress: the routes the dashboard mounts, and the replay of
 * what an earlier run left unanswered. There is no gate: the dashboard's token admits only
 * the owner.
 */
export function webEdge(config: Pick<Config, 'access' | 'home'>): EdgeFactory {
  const ownerId = config.access.owner ?? 1;
  const address: Address = { platform: WEB_PLATFORM, chatId: String(ownerId) };
  return {
    connect: ({ log, clock, inboxes }): Edge => {
      const channel = createWebChannel(() => clock.now());
      const inbox = inboxes.keyed(WEB_PLATFORM);
      const uploads = createUploadStore(path.join(config.home, 'media', 'web'));
      return {
        platform: WEB_PLATFORM,
        channel,
        // The files the owner sends: the media pipeline fetches them from here.
        files: uploads,
        acknowledge: (keys, now) => inbox.markDone(keys, now),
        ingress: (port) => {
          const input = createWebInput({
            address,
            senderId: String(ownerId),
            channel,
            inbox,
            clock,
            log,
            accept: port.accept,
            full: port.full,
          });
          const routes = createChatRoutes({
            address,
            channel,
            input,
            uploads,
            assets: loadChatPage(),
            log,
            welcome: () => welcomeOf(port.packs(), port.menu(), port.activePack(address)),
          });
          return { mounts: [routes], ready: () => void input.replay() };
        },
      };
    },
  };
}
