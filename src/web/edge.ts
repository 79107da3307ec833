import type { Clock } from '../core/clock.ts';
import type { Edge } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { EdgeFactory } from '../core-app.ts';
import type { Mount } from '../dashboard/handler.ts';
import { createEdgeInboxRepo, type EdgeInboxRepo } from '../store/edge-inbox-repo.ts';
import { createWebChannel, WEB_PLATFORM, type WebChannel } from './channel.ts';
import { createChatRoutes } from './http.ts';
import { createWebInput, type WebInputDeps } from './input.ts';
import { loadChatPage } from './page.ts';

export interface WebEdgeOptions {
  /** The owner's id: the first of ALLOWED_USER_IDS (1 when there is none). */
  ownerId: number;
}

interface Connected {
  channel: WebChannel;
  inbox: EdgeInboxRepo;
  clock: Clock;
  log: Logger;
}

/**
 * The web chat (SPEC §16) as an edge of the core: one private conversation,
 * `{platform: 'web', chatId: <owner>}`, its channel (channel.ts) and its acknowledgement —
 * the input's `edge_inbox` row marked done in the reply's transaction. There is no gate:
 * the dashboard's token admits only the owner. Once the core exists, `serve` gives the
 * routes the dashboard mounts and the replay of what an earlier run left unanswered.
 */
export function webEdge(options: WebEdgeOptions) {
  const address: Address = { platform: WEB_PLATFORM, chatId: String(options.ownerId) };
  let connected: Connected | undefined;
  const factory: EdgeFactory = {
    connect: ({ log, clock, db }): Edge => {
      const channel = createWebChannel(() => clock.now());
      const inbox = createEdgeInboxRepo(db, WEB_PLATFORM);
      connected = { channel, inbox, clock, log };
      return {
        platform: WEB_PLATFORM,
        channel,
        acknowledge: (keys, now) => inbox.markDone(keys, now),
      };
    },
  };

  return {
    factory,
    address,

    /**
     * The chat's routes and its replay, handing input to `accept` (the pipeline's entry);
     * `full` says whether the conversation would refuse a line as busy (see WebInputDeps).
     */
    serve(pipeline: Pick<WebInputDeps, 'accept' | 'full'>): { routes: Mount; replay(): number } {
      if (!connected) throw new Error('the web edge is not connected yet');
      const { channel, inbox, clock, log } = connected;
      const input = createWebInput({
        address,
        senderId: String(options.ownerId),
        channel,
        inbox,
        clock,
        log,
        ...pipeline,
      });
      const routes = createChatRoutes({ address, channel, input, assets: loadChatPage(), log });
      return { routes, replay: () => input.replay() };
    },
  };
}
