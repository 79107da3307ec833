import { type RecordedRequest, systemText } from '../fakes/model-server.ts';
import { fixturePacks, settled, type TestHarness } from './harness.ts';

/** A request that asks for a session's summary (agent/summarize.ts). */
export const isSummary = (r: RecordedRequest) =>
  systemText(r).startsWith('You compress a conversation');
/** A request that asks what to keep in MEMORY.md before a compaction (agent/memory-flush.ts). */
export const isFlush = (r: RecordedRequest) => systemText(r).startsWith('Part of a conversation');

/**
 * The alpha pack with a history budget of `budget` tokens, the model answering summaries
 * with `summary`, memory flushes with `flush` and turns with `answer`; then `turns` long
 * messages about ferns, each answered, so the session is compacted on the way.
 */
export async function compactingTurns(
  h: TestHarness,
  replies: { summary: string; flush: string; answer: string },
  options: { budget?: number; turns?: number; words?: number } = {},
): Promise<void> {
  const { budget = 400, turns = 6, words = 60 } = options;
  await h.start(
    { SATCHEL_PACKS: fixturePacks(['alpha']) },
    { app: { historyBudgetTokens: budget } },
  );
  h.model.setDefault((req) => ({
    text: isSummary(req) ? replies.summary : isFlush(req) ? replies.flush : replies.answer,
  }));
  for (let i = 0; i < turns; i++) {
    h.say(`message ${i} ${'fern '.repeat(words)}`);
    await settled(h, i + 1);
  }
}
