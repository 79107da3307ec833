import type { ChatRequest } from '../core/ports.ts';
import { ENVELOPE_RULE } from '../core/trust.ts';
import type { ChatMessage } from '../core/types.ts';
import { transcript } from './summarize.ts';

/** The pack's MEMORY.md, as the memory flush reads and extends it. */
export interface MemoryNotes {
  read(): string;
  append(text: string): void;
}

/** What the model answers when nothing is worth keeping. */
const NOTHING = 'NOTHING';
/** MEMORY.md is in every prompt: a flush adds at most this much. */
const MAX_FLUSH_CHARS = 2000;

const INSTRUCTIONS = [
  'Part of a conversation between a user and their assistant is about to be compressed into',
  'a short summary, and details will be lost. MEMORY.md is what the assistant keeps for good.',
  'List the durable facts from the conversation that MEMORY.md does not hold yet and that',
  'will matter later: what the user told about themselves, people, dates, preferences,',
  'decisions, promises. One short Markdown bullet each, names, numbers and dates exactly,',
  `in the language of the conversation. Nothing worth keeping: answer ${NOTHING}.`,
  ENVELOPE_RULE,
].join(' ');

/**
 * The memory flush: before compaction, the model gets one chance to move durable facts from
 * the messages about to be summarized into MEMORY.md, so compaction loses nothing the user
 * told it. Returns what was appended ('' when nothing). A failed call leaves MEMORY.md as it
 * was: the summary still keeps the gist. `mayKeep` decides whether the facts are appended
 * (of a tainted history, only with the owner's tap: SPEC §17).
 */
export async function flushMemory(
  messages: readonly ChatMessage[],
  notes: MemoryNotes,
  complete: (request: ChatRequest) => Promise<string>,
  mayKeep: (facts: string) => Promise<boolean> = async () => true,
): Promise<string> {
  if (messages.length === 0) return '';
  const content = `MEMORY.md now:\n${notes.read().trim() || '(empty)'}\n\nConversation:\n${transcript(messages)}`;
  const answer = (
    await complete({ system: INSTRUCTIONS, messages: [{ role: 'user', content }] })
  ).trim();
  if (!answer || answer.replace(/[^A-Za-z]/g, '').toUpperCase() === NOTHING) return '';
  const facts = answer.slice(0, MAX_FLUSH_CHARS);
  if (!(await mayKeep(facts))) return '';
  notes.append(facts);
  return facts;
}

/** A pack storage's MEMORY.md as MemoryNotes. */
export function memoryNotesOf(storage: {
  readNote(file: 'MEMORY.md'): string;
  writeNote(file: 'MEMORY.md', text: string): void;
}): MemoryNotes {
  return {
    read: () => storage.readNote('MEMORY.md'),
    append: (text) =>
      storage.writeNote(
        'MEMORY.md',
        `${storage.readNote('MEMORY.md').trimEnd()}\n${text.trim()}\n`,
      ),
  };
}
