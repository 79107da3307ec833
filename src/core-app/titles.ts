import { createModelCaller } from '../agent/model-call.ts';
import { defaultRetryPolicy } from '../agent/retry.ts';
import type { Clock } from '../core/clock.ts';
import type { AnsweredTurn, OfferedModels } from '../core/edge.ts';
import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { Router } from '../routing/router.ts';
import type { SessionRepo } from '../store/session-repo.ts';
import { createTitleWriter } from '../turn/conversation-title.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { QuotaGate } from '../usage/quota.ts';
import type { Providers } from './providers.ts';

export interface TitleParts {
  providers: Providers;
  activePack(address: Address): string | undefined;
  usage: { ledger: Ledger; quota: QuotaGate };
  sessions: Pick<SessionRepo, 'history'>;
  router: Pick<Router, 'modelPick'>;
  packModel(pack: string): string | undefined;
  events: Pick<EventBus, 'on'>;
  clock: Clock;
  log: Logger;
}

/**
 * What the edges hear of answered turns, the model's titles for their conversations (SPEC
 * §16: the web chat names a conversation after its first exchange), and the models a
 * picker offers (SPEC §14).
 */
export function buildTitles(parts: TitleParts) {
  const { providers } = parts;
  const call = createModelCaller({
    model: providers.model,
    fallback: providers.fallback,
    ledger: parts.usage.ledger,
    quota: parts.usage.quota,
    clock: parts.clock,
    log: parts.log,
    retry: defaultRetryPolicy,
  });
  const title = createTitleWriter({
    history: (sessionId) => parts.sessions.history(sessionId),
    modelFor: (address: Address, pack: string) =>
      providers.models.answering(parts.packModel(pack), parts.router.modelPick(address)).model,
    call,
  });
  return {
    answered(listener: (turn: AnsweredTurn) => void): void {
      parts.events.on('turn_completed', ({ address, pack, sessionId, turnId, source }) => {
        if (source !== 'schedule') listener({ address, pack, sessionId, turnId });
      });
    },
    title,
    async models(address: Address, signal?: AbortSignal): Promise<OfferedModels> {
      const offered = await providers.models.offered(signal);
      const pack = parts.activePack(address);
      const pick = parts.router.modelPick(address);
      const { model, source } = providers.models.answering(
        pack ? parts.packModel(pack) : undefined,
        pick,
      );
      return {
        offered,
        current: `${model.info.provider}:${model.info.model}`,
        picked: source === 'chat',
      };
    },
  };
}
