import type { CallModel } from '../agent/model-call.ts';
import type { AnsweredTurn } from '../core/edge.ts';
import type { ChatModel } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { StoredMessage } from '../store/session-repo.ts';

/**
 * What the title call asks (SPEC §16). The words begin with `TITLE_PROMPT_START`, by which
 * a test's fake model tells this call from a turn's.
 */
export const TITLE_PROMPT_START = 'Name this conversation';
const INSTRUCTIONS = [
  `${TITLE_PROMPT_START} in at most six words, in its language, from its first exchange`,
  'below. Answer with the title alone: no quotes, no full stop, no Markdown.',
].join(' ');

/** What of an exchange goes into the call: enough to name it, little to pay for. */
const MAX_EXCHANGE_CHARS = 1500;
/** The longest title kept; a longer answer is cut. */
export const MAX_MODEL_TITLE_CHARS = 60;

export interface TitleDeps {
  /** The session's stored messages, oldest first. */
  history(sessionId: string): readonly StoredMessage[];
  /** The model that answers `address` for `pack` (its /model pick, the pack's, the default). */
  modelFor(address: Address, pack: string): ChatModel;
  /** One booked, quota-gated call (agent/model-call.ts). */
  call: CallModel;
}

/** The turn whose conversation is to be named, as its `turn_completed` event says it. */
export type TitledTurn = AnsweredTurn;

/**
 * A conversation's title written by the model from its first exchange (the first question
 * and its answer): one short call, booked in the ledger under the turn it follows and gated
 * by the quota like any call. Undefined when the session holds no exchange yet or the model
 * answered nothing usable; a failed call rejects (the caller logs it).
 */
export function createTitleWriter(deps: TitleDeps) {
  return async (turn: TitledTurn, signal: AbortSignal): Promise<string | undefined> => {
    const messages = deps.history(turn.sessionId);
    const question = messages.find((m) => m.role === 'user' && m.content.trim() !== '');
    const answer = messages.find((m) => m.role === 'assistant' && m.content.trim() !== '');
    if (!question || !answer) return undefined;
    const exchange = `User: ${question.content}\n\nAssistant: ${answer.content}`.slice(
      0,
      MAX_EXCHANGE_CHARS,
    );
    const response = await deps.call({
      scope: {
        pack: turn.pack,
        chatId: turn.address.chatId,
        threadId: turn.address.threadId,
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        channel: turn.address.platform,
      },
      request: { system: INSTRUCTIONS, messages: [{ role: 'user', content: exchange }] },
      signal,
      model: deps.modelFor(turn.address, turn.pack),
    });
    return cleanTitle(response.text);
  };
}

export type TitleWriter = ReturnType<typeof createTitleWriter>;

/** The model's answer as a title: one line, no quotes or trailing stop, cut to length. */
export function cleanTitle(text: string): string | undefined {
  const line = text
    .trim()
    .split('\n')[0]!
    .replace(/^[#*_\s"'“”‘’«»]+|[*_\s"'“”‘’«».]+$/g, '')
    .replace(/\s+/g, ' ');
  if (line === '') return undefined;
  return line.length > MAX_MODEL_TITLE_CHARS
    ? `${line.slice(0, MAX_MODEL_TITLE_CHARS - 1)}…`
    : line;
}
