import { eq, sql } from 'drizzle-orm';
import type { Db } from '../store/client.ts';
import { usageEvents } from '../store/schema.ts';
import type { Calendar } from './calendar.ts';
import { usd } from './money.ts';
import { sumColumns, withTokens } from './sums.ts';
import type { UsageTotals } from './totals.ts';

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** Spend as a footer shows it: unknown when no call had a price, never $0. */
function spend(cost: number | null, calls: number, unpriced: number): string {
  if (calls > 0 && unpriced === calls) return 'cost unknown';
  return `${usd(cost ?? 0)}${unpriced ? ` + ${unpriced} unpriced` : ''}`;
}

/**
 * The usage footer (`/usage footer on`): one line under an answer with the turn's tokens
 * and cost (every ledger row of the turn: model calls, transcription, vision) and today's
 * total, in Markdown.
 */
export function createUsageFooter(deps: { db: Db; totals: UsageTotals; calendar: Calendar }) {
  const byTurn = deps.db
    .select(sumColumns)
    .from(usageEvents)
    .where(eq(usageEvents.turnId, sql.placeholder('turnId')))
    .prepare();

  return (turnId: string, now: number): string => {
    deps.totals.settle();
    const row = byTurn.get({ turnId });
    const turn = row ? withTokens(row) : undefined;
    const today = deps.totals.day(deps.calendar.dayOf(now));
    const thisTurn = turn
      ? `${count(turn.tokens)} tokens, ${spend(turn.cost_usd, turn.calls, turn.unknown_price_calls)}`
      : '0 tokens, $0';
    const todayText = `${count(today.tokens)} tokens, ${spend(today.costUsd, today.calls, today.unpriced)}`;
    return `_This answer: ${thisTurn} · today: ${todayText}_`;
  };
}

export type UsageFooter = ReturnType<typeof createUsageFooter>;
