/**
 * The memory flush (SPEC §13): before /compact and before an automatic compaction, the model
 * gets one chance to save durable facts to MEMORY.md, so the compaction loses nothing the
 * user told it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { userTexts } from '../fakes/model-server.ts';
import { compactingTurns, isFlush, isSummary } from '../support/compaction.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const memoryFile = () => readFileSync(path.join(h.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');

describe('the memory flush', () => {
  it('saves durable facts to MEMORY.md before /compact, then summarizes', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue({ text: 'Noted!' });
    h.say('My sister Anna turns 30 on May 3.');
    await settled(h, 1);
    h.model.enqueue({ text: "- Sister Anna's birthday: May 3 (turns 30)" }, { text: '- summary' });
    h.say('/compact');
    await settled(h, 2);

    const [flush, summary] = h.model.chatRequests().slice(1);
    expect(isFlush(flush!)).toBe(true);
    // The flush sees the conversation and the notes it extends.
    expect(userTexts(flush!)[0]).toContain('user: My sister Anna turns 30 on May 3.');
    expect(userTexts(flush!)[0]).toContain('ALPHA-MEMORY-NOTE');
    expect(isSummary(summary!)).toBe(true);
    expect(memoryFile()).toMatch(
      /ALPHA-MEMORY-NOTE[\s\S]*- Sister Anna's birthday: May 3 \(turns 30\)\n$/,
    );
    expect(h.tg.texts(ALLOWED_USER)[1]).toMatch(/^Compacted \d+ messages/);
  });

  it('leaves MEMORY.md alone when the model finds nothing to keep', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const before = memoryFile();
    h.model.enqueue({ text: 'Hi!' }, { text: 'NOTHING.' }, { text: '- greeting' });
    h.say('hello');
    await settled(h, 1);
    h.say('/compact');
    await settled(h, 2);
    expect(memoryFile()).toBe(before);
  });

  it('runs before an automatic compaction too', async () => {
    await compactingTurns(h, {
      summary: '- summary',
      flush: '- FLUSHED-FACT: the fern is called Fred',
      answer: `ok ${'x'.repeat(300)}`,
    });
    const requests = h.model.chatRequests();
    const firstFlush = requests.findIndex(isFlush);
    expect(firstFlush).toBeGreaterThan(-1);
    expect(isSummary(requests[firstFlush + 1]!)).toBe(true);
    expect(memoryFile()).toContain('- FLUSHED-FACT: the fern is called Fred');
  });
});
