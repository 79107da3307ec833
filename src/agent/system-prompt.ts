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

export function buildSystemPrompt(context: PromptContext): string {
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: context.timezone,
    dateStyle: 'full',
    timeStyle: 'short',
  }).format(new Date(context.now));
  const sections = [CORE, `Now: ${when} (${context.timezone}).`, ...(context.sections ?? [])];
  return sections.join('\n\n');
}
