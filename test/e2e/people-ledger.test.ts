/**
 * Every ledger row records the person (SPEC §19), also of the calls outside a chat turn's
 * answer: the memory flush and the summary of a compaction, automatic or by /compact.
 */
import { describe, expect, it } from 'vitest';
import { isFlush, isSummary } from '../support/compaction.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const GUEST = 222;

describe('the person of calls outside a turn’s answer', () => {
  it('a compaction’s flush and summary are booked to the person whose session it is', async () => {
    await h.start(
      { SATCHEL_PACKS: fixturePacks(['alpha']), ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}` },
      { app: { historyBudgetTokens: 400 } },
    );
    h.model.setDefault((req) => ({
      text: isSummary(req) ? '- summary' : isFlush(req) ? 'NOTHING.' : `ok ${'x'.repeat(300)}`,
    }));
    h.say('hello');
    await settled(h, 1);
    // The guest's long messages: their session is compacted on the way.
    for (let i = 0; i < 6; i++) {
      h.tg.text({ userId: GUEST, text: `message ${i} ${'fern '.repeat(60)}` });
      await settled(h, i + 2);
    }
    h.tg.text({ userId: GUEST, text: '/compact' });
    await settled(h, 8);
    expect(h.tg.texts(GUEST).at(-1)).toMatch(/^Compacted \d+ messages/);

    const requests = h.model.chatRequests();
    const flushes = requests.filter(isFlush).length;
    const summaries = requests.filter(isSummary).length;
    // At least one automatic compaction, and /compact: each a flush and a summary.
    expect(flushes).toBeGreaterThanOrEqual(2);
    expect(summaries).toBe(flushes);
    // One ledger row per call: the owner's one turn, and everything else the guest's.
    expect(
      h.rows(
        'SELECT person, channel, count(*) AS n FROM usage_events GROUP BY person, channel ORDER BY person',
      ),
    ).toEqual([
      { person: String(GUEST), channel: 'tg', n: requests.length - 1 },
      { person: 'owner', channel: 'tg', n: 1 },
    ]);
    // /compact's own calls, under its turn id, are the guest's.
    expect(
      h.rows("SELECT DISTINCT person FROM usage_events WHERE turn_id LIKE 'compact-%'"),
    ).toEqual([{ person: String(GUEST) }]);
  });
});
