import type { Calendar } from './calendar.ts';
import { usd } from './money.ts';
import type { Caps, PackCaps } from './quota.ts';
import type { Totals, UsageTotals } from './totals.ts';

const tokens = (n: number) => Math.round(n).toLocaleString('en-US');
const minutes = (seconds: number) =>
  seconds < 60 ? `${Math.round(seconds)} s` : `${(seconds / 60).toFixed(1)} min`;

function against(used: number, cap: number | undefined, format: (n: number) => string): string {
  if (!cap) return `${format(used)} (no cap)`;
  return `${format(used)} of ${format(cap)} (${format(Math.max(0, cap - used))} left)`;
}

/** Spend as the dashboard shows it: unknown when no call had a price, never $0. */
function spend(t: Totals): string {
  if (t.calls > 0 && t.unpriced === t.calls)
    return `unknown (${t.unpriced} call(s) with unknown price)`;
  return t.unpriced
    ? `${usd(t.costUsd)} + ${t.unpriced} call(s) with unknown price`
    : usd(t.costUsd);
}

/** The /usage answer: today's and this session's tokens and spend, against every cap. */
export function usageReport(input: {
  totals: UsageTotals;
  calendar: Calendar;
  caps: Caps;
  now: number;
  sessionId?: string | undefined;
  pack?: { name: string; displayName: string; caps?: PackCaps | undefined } | undefined;
}): string {
  const { totals, calendar, caps } = input;
  const day = calendar.dayOf(input.now);
  const today = totals.day(day);
  const lines = [
    `Today (${day}, ${calendar.timezone}): ${today.calls} model call(s)`,
    `• tokens: ${against(today.tokens, caps.dailyTokens, tokens)}`,
    `• spend: ${spend(today)}${caps.dailyUsd ? ` — cap ${usd(caps.dailyUsd)}, ${usd(Math.max(0, caps.dailyUsd - today.costUsd))} left` : ' (no cap)'}`,
  ];
  const media = totals.media(day);
  if (media.transcriptions > 0)
    lines.push(
      `• voice: ${media.transcriptions} transcription(s), ${minutes(media.audioSeconds)} of audio`,
    );
  if (media.visionImages > 0) lines.push(`• photos described: ${media.visionImages}`);
  if (input.pack) {
    const pack = totals.packDay(input.pack.name, day);
    lines.push(
      `${input.pack.displayName} today:`,
      `• tokens: ${against(pack.tokens, input.pack.caps?.dailyTokens, tokens)}`,
      `• spend: ${against(pack.costUsd, input.pack.caps?.dailyUsd, usd)}`,
    );
  }
  if (input.sessionId) {
    const session = totals.session(input.sessionId);
    lines.push(
      'This session:',
      `• tokens: ${against(session.tokens, caps.sessionTokens, tokens)}`,
      `• spend: ${spend(session)}`,
    );
  }
  return lines.join('\n');
}
