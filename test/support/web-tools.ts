import type { Clock } from '../../src/core/clock.ts';
import type { TurnToolContext } from '../../src/tools/context.ts';
import { WEB_LIMITS } from '../../src/tools/web/guarded-get.ts';

/**
 * The web part of a tool context for tests that do not fetch or search: no provider, a
 * resolver that refuses every name (so nothing reaches real DNS), the quota open.
 */
export function offlineWeb(clock: Clock): Pick<TurnToolContext, 'web' | 'usage'> {
  return {
    web: {
      fetch: {
        allowHosts: [],
        maxChars: 20_000,
        resolve: async () => {
          throw new Error('no DNS in tests');
        },
        limits: WEB_LIMITS,
        clock,
      },
      search: {
        provider: undefined,
        quota: { check: () => {} },
        ledger: { record: () => {} },
        clock,
      },
    },
    usage: {
      scope: { pack: 'alpha', chatId: '1', threadId: null, sessionId: 's', turnId: 't' },
      quota: { pack: 'alpha', sessionId: 's' },
    },
  };
}
