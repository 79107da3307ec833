import { background } from '../core/background.ts';
import type { AnsweredTurn, IngressPort } from '../core/edge.ts';
import type { EdgeConversations } from '../core/edge-conversations.ts';
import type { Logger } from '../core/ports.ts';

/** How long the title call may take. */
const TITLE_TIMEOUT_MS = 30_000;

export interface ModelTitleDeps {
  port: Pick<IngressPort, 'answered' | 'title'>;
  store: Pick<EdgeConversations, 'get' | 'modelTitle'>;
  log: Logger;
  /** The title was written: the pages showing the conversation learn it. */
  titled(id: string, title: string): void;
}

/**
 * Titles written by the model (SPEC §16): after a conversation's first answered exchange,
 * one call names it, replacing its first line. A title the owner chose is never replaced,
 * and the model writes one title per conversation (a failed call leaves the first line, and
 * the next answer tries again). The store redacts the title as it does every title.
 */
export function nameByModel(deps: ModelTitleDeps): void {
  const asking = new Set<string>();

  async function name(turn: AnsweredTurn): Promise<void> {
    const id = turn.address.chatId;
    try {
      const title = await deps.port.title(turn, AbortSignal.timeout(TITLE_TIMEOUT_MS));
      if (title && deps.store.modelTitle(id, title)) {
        const stored = deps.store.get(id)?.title ?? title;
        deps.titled(id, stored);
      }
    } catch (error) {
      // Expected now and then (a refused call, a cap): one line; the first line stays.
      deps.log.warn(
        { event: 'web_title_failed', conversation: id, reason: (error as Error).message },
        'the model did not title the conversation',
      );
    } finally {
      asking.delete(id);
    }
  }

  deps.port.answered((turn) => {
    const id = turn.address.chatId;
    const found = deps.store.get(id);
    if (!found || found.titled || found.modelTitled || found.deletedAt !== null) return;
    if (asking.has(id)) return;
    asking.add(id);
    background(deps.log, 'web_title_failed', name(turn));
  });
}
