import type { ChatRequest } from '../core/ports.ts';
import type { ChatMessage } from '../core/types.ts';

const INSTRUCTIONS = [
  'You compress a conversation between a user and their assistant into notes the assistant',
  'will read instead of the conversation. Keep every fact, decision, preference, open',
  'question and promise; names, numbers and dates exactly. Drop chit-chat. Write compact',
  'Markdown bullet points, in the language of the conversation, at most about 400 words.',
].join(' ');

/**
 * Summarizes `messages` (and the earlier summary they continue) with one model call. The
 * transcript goes in as text, so tool calls need no provider-specific shape.
 */
export async function summarize(
  messages: readonly ChatMessage[],
  previous: string | null,
  complete: (request: ChatRequest) => Promise<string>,
): Promise<string> {
  const content = [
    previous ? `Earlier summary:\n${previous}\n` : '',
    `Conversation to add:\n${transcript(messages)}`,
  ].join('\n');
  const summary = await complete({ system: INSTRUCTIONS, messages: [{ role: 'user', content }] });
  return summary.trim() || previous || '';
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
