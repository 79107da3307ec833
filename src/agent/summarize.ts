import type { ChatRequest } from '../core/ports.ts';
import { ENVELOPE_RULE, envelope } from '../core/trust.ts';
import type { ChatMessage } from '../core/types.ts';

const INSTRUCTIONS = [
  'You compress a conversation between a user and their assistant into notes the assistant',
  'will read instead of the conversation. Keep every fact, decision, preference, open',
  'question and promise; names, numbers and dates exactly. Drop chit-chat. Write compact',
  'Markdown bullet points, in the language of the conversation, at most about 400 words.',
  ENVELOPE_RULE,
].join(' ');

/** The source a tainted session's summary is enveloped as (SPEC §17). */
export const SUMMARY_SOURCE = 'summary';

/**
 * Summarizes `messages` (and the earlier summary they continue) with one model call. The
 * transcript goes in as text, so tool calls need no provider-specific shape. The summary of
 * a `tainted` history is itself untrusted: it comes back in an envelope, so wherever it goes
 * (the prompt, the next session) it stays marked (SPEC §17).
 */
export async function summarize(
  messages: readonly ChatMessage[],
  previous: string | null,
  complete: (request: ChatRequest) => Promise<string>,
  tainted = false,
): Promise<string> {
  const content = [
    previous ? `Earlier summary:\n${previous}\n` : '',
    `Conversation to add:\n${transcript(messages)}`,
  ].join('\n');
  const summary = await complete({ system: INSTRUCTIONS, messages: [{ role: 'user', content }] });
  const text = summary.trim();
  if (!text) return previous || '';
  return tainted ? envelope(SUMMARY_SOURCE, text) : text;
}

/** The messages as plain lines, so tool calls need no provider-specific shape. */
export function transcript(messages: readonly ChatMessage[]): string {
  return messages.map(line).join('\n');
}

function line(m: ChatMessage): string {
  if (m.role === 'tool') return `[tool result] ${m.content.slice(0, 600)}`;
  const calls = m.toolCalls?.map((c) => `[calls ${c.name}(${c.arguments.slice(0, 200)})]`) ?? [];
  return [`${m.role}: ${m.content}`, ...calls].join(' ');
}
