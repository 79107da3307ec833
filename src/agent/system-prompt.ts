/** What the model is told before every turn. Packs add their persona, memory and skills. */
export interface PromptContext {
  now: number;
  timezone: string;
  /** Extra sections (a pack's persona, memory, skill index), already written. */
  sections?: readonly string[];
}

const CORE = [
  'You are satchel, a personal assistant the user talks to in Telegram.',
  'Answer in the language of the user. Be direct and brief; expand only when asked.',
  'Format with plain Markdown: **bold**, _italic_, `code`, fenced code blocks, links and lists.',
  'Do not use HTML, and do not use Markdown tables unless the user asks for a table.',
].join('\n');

/** One formatter per time zone, kept: building one costs about 0.4 ms, and every turn needs one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      dateStyle: 'full',
      timeStyle: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function buildSystemPrompt(context: PromptContext): string {
  const when = formatterFor(context.timezone).format(new Date(context.now));
  const sections = [CORE, `Now: ${when} (${context.timezone}).`, ...(context.sections ?? [])];
  return sections.join('\n\n');
}
