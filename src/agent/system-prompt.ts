/** What the model is told before every turn. Packs add their persona, memory and skills. */
export interface PromptContext {
  now: number;
  timezone: string;
  /** Extra sections (a pack's persona, memory, skill index), already written. */
  sections?: readonly string[];
}

const CORE = [
  'You are satchel, a personal assistant the user talks to in a chat.',
  'Answer in the language of the user. Be direct and brief; expand only when asked.',
  'Format with plain Markdown: **bold**, _italic_, `code`, fenced code blocks, links and lists.',
  'Do not use HTML, and do not use Markdown tables unless the user asks for a table.',
].join('\n');

/**
 * The "Now" line of each time zone, to the minute, kept until the minute changes: building a
 * formatter costs about 0.4 ms and formatting a date about 35 µs, and every turn needs one.
 */
const nowLines = new Map<string, { minute: number; line: string; format: Intl.DateTimeFormat }>();

function nowLine(now: number, timeZone: string): string {
  const minute = Math.floor(now / 60_000);
  let kept = nowLines.get(timeZone);
  if (!kept) {
    const format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      dateStyle: 'full',
      timeStyle: 'short',
    });
    kept = { minute: Number.NaN, line: '', format };
    nowLines.set(timeZone, kept);
  }
  if (kept.minute !== minute) {
    kept.minute = minute;
    kept.line = `Now: ${kept.format.format(new Date(now))} (${timeZone}).`;
  }
  return kept.line;
}

/**
 * The core rules, the pack's sections, and the time last: everything before it stays the
 * same from call to call, so a provider that caches prompt prefixes can serve it from the
 * cache instead of changing every minute at the second line.
 */
export function buildSystemPrompt(context: PromptContext): string {
  return [CORE, ...(context.sections ?? []), nowLine(context.now, context.timezone)].join('\n\n');
}
