import { usd } from '../usage/money.ts';
import type { PeriodUsage, UsageOverview } from '../usage/overview.ts';
import type { PersonUsage } from '../usage/person-usage.ts';
import { type UsageSums, zeroSums } from '../usage/sums.ts';
import { table } from './table.ts';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const packName = (pack: string | null) => pack ?? '(no pack)';
const KINDS = {
  llm: 'chat model',
  stt: 'speech to text',
  tts: 'voice replies',
  vision: 'vision',
  search: 'search',
} as const;

/** The share of input tokens the provider's prompt cache served. */
const cacheShare = (p: UsageSums) =>
  p.input_tokens > 0 ? `${Math.round((100 * p.cached_input_tokens) / p.input_tokens)}%` : '–';

/** A cost that says when part or all of it is unknown: never $0 for unpriced calls. */
export function costText(row: Pick<UsageSums, 'calls' | 'cost_usd' | 'unknown_price_calls'>) {
  if (row.calls === 0) return '$0';
  if (row.cost_usd === null) return 'unknown';
  if (row.unknown_price_calls > 0)
    return `${usd(row.cost_usd)} + ${row.unknown_price_calls} unpriced`;
  return usd(row.cost_usd);
}

/** Each person's spend today beside the last `days` days, most spend first (SPEC §19). */
function peopleSection(u: UsageOverview): string[] {
  const today = new Map(u.by_person.today.map((p) => [p.person, p]));
  const cost = (p: PersonUsage | undefined) =>
    !p || p.calls === 0 ? '$0' : p.cost_usd === null ? 'unknown' : usd(p.cost_usd);
  return table(
    ['person', 'today', 'calls', 'tokens', 'cost'],
    u.by_person.last_30_days.map((p) => [
      personName(p.person, p.name),
      cost(today.get(p.person)),
      int(p.calls),
      int(p.tokens),
      cost(p),
    ]),
  );
}

/** How a person is shown: `owner`, or their name and the id `/people` takes. */
const personName = (person: string, name: string) =>
  person === 'owner' ? 'owner' : `${name} (${person})`;

function capLine(label: string, used: number, cap: number, format: (n: number) => string) {
  if (!cap) return `  ${label}: ${format(used)} (no cap)`;
  return `  ${label}: ${format(used)} of ${format(cap)} (${format(Math.max(0, cap - used))} left)`;
}

function daysSection(u: UsageOverview): string[] {
  const days = new Map<string, { sums: UsageSums; packs: string[] }>();
  for (const row of u.by_day) {
    const day = days.get(row.day) ?? { sums: zeroSums(), packs: [] };
    day.sums.calls += row.calls;
    day.sums.tokens += row.tokens;
    day.sums.unknown_price_calls += row.unknown_price_calls;
    if (row.cost_usd !== null) day.sums.cost_usd = (day.sums.cost_usd ?? 0) + row.cost_usd;
    day.packs.push(`${packName(row.pack)} ${costText(row)}`);
    days.set(row.day, day);
  }
  return table(
    ['day', 'calls', 'tokens', 'cost', 'by pack'],
    [...days]
      .reverse()
      .map(([day, d]) => [
        day,
        int(d.sums.calls),
        int(d.sums.tokens),
        costText(d.sums),
        d.packs.join(', '),
      ]),
    [4],
  );
}

/** `satchel usage` as text: the same numbers as the dashboard and `/api/usage`. */
export function usageTable(u: UsageOverview, source: string): string {
  const period = (label: string, p: PeriodUsage) => [
    label,
    int(p.calls),
    int(p.input_tokens),
    int(p.output_tokens),
    int(p.tokens),
    costText(p),
    cacheShare(p),
    usd(p.cache_saved_usd),
  ];
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: u.timezone,
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  const window = `last ${u.days} day${u.days === 1 ? '' : 's'}`;
  const lines = [
    `satchel usage · today is ${u.as_of_day} (${u.timezone}) · ${source}`,
    '',
    ...table(
      ['period', 'calls', 'tokens in', 'tokens out', 'tokens', 'cost', 'cached', 'cache saved'],
      [
        period('today', u.today),
        period('last 7 days', u.last_7_days),
        period('last 30 days', u.last_30_days),
      ],
    ),
    '',
    'Caps today',
    capLine('tokens', u.caps.used_today.tokens, u.caps.daily_tokens, int),
    capLine('spend', u.caps.used_today.cost_usd ?? 0, u.caps.daily_usd, usd),
    u.caps.session_tokens
      ? `  per session: ${int(u.caps.session_tokens)} tokens`
      : '  per session: no cap',
  ];
  if (u.unknown_price_models.length > 0)
    lines.push(
      '',
      `! Unknown prices (${window}): their cost shows as unknown, never $0, and is not in the totals`,
      ...u.unknown_price_models.map(
        (m) => `  ${m.provider}:${m.model}: ${int(m.calls)} call(s), ${int(m.tokens)} tokens`,
      ),
    );
  lines.push(
    '',
    `Per day (${window})`,
    ...daysSection(u),
    '',
    `By model (${window})`,
    ...table(
      ['model', 'calls', 'tokens in', 'tokens out', 'cost', 'cached', 'cache saved'],
      u.by_model.map((m) => [
        `${m.provider}:${m.model}`,
        int(m.calls),
        int(m.input_tokens),
        int(m.output_tokens),
        costText(m),
        cacheShare(m),
        usd(m.cache_saved_usd),
      ]),
    ),
    '',
    `By pack (${window})`,
    ...table(
      ['pack', 'calls', 'tokens', 'cost'],
      u.by_pack.map((p) => [packName(p.pack), int(p.calls), int(p.tokens), costText(p)]),
    ),
    '',
    `By kind (${window})`,
    ...table(
      ['kind', 'calls', 'tokens', 'audio', 'images', 'cost'],
      u.by_kind.map((k) => [
        KINDS[k.kind],
        int(k.calls),
        int(k.tokens),
        `${Math.round(k.audio_seconds)} s`,
        int(k.images),
        costText(k),
      ]),
    ),
    '',
    // by_person's longer period is always the last 30 days, whatever --days says.
    'By person (today · last 30 days)',
    ...peopleSection(u),
    '',
    'Recent turns',
    ...table(
      ['started', 'source', 'pack', 'person', 'chat', 'calls', 'tokens', 'cost', 'latency'],
      u.recent_turns.map((t) => [
        when.format(t.started_at),
        t.source,
        packName(t.pack),
        t.person ?? '-',
        t.chat === null ? '-' : String(t.chat),
        int(t.calls),
        int(t.tokens),
        costText(t),
        `${(t.latency_ms / 1000).toFixed(1)} s`,
      ]),
      [1, 2, 3],
    ),
  );
  return `${lines.join('\n')}\n`;
}
