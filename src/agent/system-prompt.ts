import { ENVELOPE_RULE } from '../core/trust.ts';

/** What the model is told before every turn. Packs add their persona, memory and skills. */
export interface PromptContext {
  /** Extra sections (a pack's persona, memory, skill index), already written. */
  sections?: readonly string[];
}

const CORE = [
  'You are satchel, a personal assistant the user talks to in a chat.',
  'Answer in the language of the user. Be direct and brief; expand only when asked.',
  'Format with plain Markdown: **bold**, _italic_, `code`, fenced code blocks, links and lists.',
  'Do not use HTML, and do not use Markdown tables unless the user asks for a table.',
  "Each user message starts with a line `[Sent: YYYY-MM-DD Weekday HH:MM Zone]`: the user's local date, weekday, time and time zone when it was sent.",
  'The system line `[Now: YYYY-MM-DD Weekday HH:MM Zone]` after the conversation is the current local date, weekday, time and time zone: today is its date. Do not repeat these lines in your answers.',
  ENVELOPE_RULE,
].join('\n');

/**
 * The core rules, then the pack's sections. Nothing in it changes by the minute (the time
 * travels with each user message, and the current time is the system line the agent puts
 * after the conversation, see time-stamp.ts): from one request to the next it is the same,
 * so a provider that caches prompt prefixes serves it, and the conversation after it, from
 * the cache. It changes when the pack's notes or persona do.
 */
export function buildSystemPrompt(context: PromptContext): string {
  return [CORE, ...(context.sections ?? [])].join('\n\n');
}
