import type { ChatMessage } from '../core/types.ts';

/** Rough token count of a message list (about 4 characters a token). */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += m.content.length + 8;
    for (const call of m.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return Math.ceil(chars / 4);
}

const INTERRUPTED = 'Error: no result — the turn was interrupted before this tool finished.';

/**
 * Makes a stored history valid for any provider: a tool result without the call that asked
 * for it is dropped, a call whose result never came (a crash, /stop) gets an error result,
 * so the model knows it did not happen, and the user messages of one turn (a batch, stored
 * one per update) become one.
 */
export function repairHistory(
  messages: readonly (ChatMessage & { turnId?: string })[],
): ChatMessage[] {
  const out: ChatMessage[] = [];
  let open = new Map<string, true>();
  let previousTurn: string | undefined;
  const closeOpen = () => {
    for (const id of open.keys()) out.push({ role: 'tool', content: INTERRUPTED, toolCallId: id });
    open = new Map();
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      if (m.toolCallId === undefined || !open.delete(m.toolCallId)) continue;
      out.push(strip(m));
      continue;
    }
    closeOpen();
    const previous = out.at(-1);
    if (m.role === 'user' && previous?.role === 'user' && m.turnId && m.turnId === previousTurn) {
      previous.content = `${previous.content}\n${m.content}`;
      if (m.images?.length) previous.images = [...(previous.images ?? []), ...m.images];
      continue;
    }
    previousTurn = m.turnId;
    out.push(strip(m));
    for (const call of m.role === 'assistant' ? (m.toolCalls ?? []) : []) open.set(call.id, true);
  }
  closeOpen();
  return out;
}

/**
 * Where to cut a history so that the part kept starts at a user message and keeps at least
 * `keepRecent` messages; 0 when there is nothing worth cutting.
 */
export function compactionCut(messages: readonly ChatMessage[], keepRecent: number): number {
  for (let i = messages.length - keepRecent; i > 0; i--) if (messages[i]?.role === 'user') return i;
  return 0;
}

/**
 * The message without its storage fields (id, turn), set field by field: it runs for every
 * message of the history on every call.
 */
function strip(m: ChatMessage): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content };
  if (m.images?.length) out.images = m.images;
  if (m.toolCalls?.length) out.toolCalls = m.toolCalls;
  if (m.toolCallId) out.toolCallId = m.toolCallId;
  return out;
}
