/**
 * Receipts (SPEC §18), end to end through the fake Bot API and the real OpenAI SDK: an answer
 * whose turn changed what satchel keeps ends with one line built from the tool results
 * (memory written, rows written, jobs created, paused or removed, a file saved); a model that
 * only says it saved gets none, and so does a tool call that failed. The line sits right under
 * the answer, above the `/usage footer` line and the pack badge.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shownText } from '../support/chat-client.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { pickPackByButton } from '../support/pack-picker.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const h = harnessPerTest();
const web = webChatPerTest();
const HOUR = 3_600_000;
const BUNDLED_VOCAB = fileURLToPath(new URL('../../packs/vocab', import.meta.url));
/** 10:00 UTC on a Monday. */
const MONDAY_10 = Date.UTC(2026, 10, 23, 10, 0, 0);

type Call = { name: string; arguments: object };
const memory = (text: string): Call => ({
  name: 'memory',
  arguments: { action: 'append', file: 'MEMORY.md', text },
});
const plant = (name: string): Call => ({
  name: 'db_write',
  arguments: { action: 'insert', table: 'plants', values: { name } },
});

async function startAlpha(env: Record<string, string> = {}) {
  const clock = new JumpClock(MONDAY_10);
  await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), ...env }, { app: { clock } });
  return clock;
}

/** The model calls `calls` (one round), then answers `answer`; returns what the user saw. */
async function turn(calls: Call[], answer: string, updates: number): Promise<string> {
  h.model.enqueue({ toolCalls: calls }, { text: answer });
  h.say('please keep this');
  await settled(h, updates);
  return h.tg.texts(ALLOWED_USER).at(-1)!;
}

describe('receipts', () => {
  it('names memory, rows and a reminder in one line, from the tools that ran', async () => {
    await startAlpha();
    const shown = await turn(
      [
        memory('The user grows ferns.'),
        plant('fern'),
        plant('basil'),
        {
          name: 'schedule',
          arguments: {
            action: 'create',
            schedule: '2026-11-23T18:00:00Z',
            prompt: 'Remind the user to water the ferns.',
          },
        },
      ],
      'Done.',
      1,
    );
    expect(shown).toBe('Done.\n\n✓ memory updated · 2 rows saved · reminder set for today 18:00');
  });

  it('counts jobs created, paused and removed, and rows updated and deleted', async () => {
    await startAlpha();
    await turn([plant('fern'), plant('ivy')], 'Planted.', 1);
    const create = (schedule: string): Call => ({
      name: 'schedule',
      arguments: { action: 'create', schedule, prompt: 'Check the plants.' },
    });
    await turn([create('0 9 * * *'), create('0 18 * * *')], 'Scheduled.', 2);
    const ids = h.rows<{ id: string }>("SELECT id FROM jobs WHERE source = 'tool' ORDER BY id");
    const shown = await turn(
      [
        { name: 'schedule', arguments: { action: 'pause', id: ids[0]!.id } },
        { name: 'schedule', arguments: { action: 'remove', id: ids[1]!.id } },
        {
          name: 'db_write',
          arguments: {
            action: 'update',
            table: 'plants',
            values: { name: 'Fern' },
            where: { name: 'fern' },
          },
        },
        {
          name: 'db_write',
          arguments: { action: 'delete', table: 'plants', where: { name: 'ivy' } },
        },
      ],
      'Tidied.',
      3,
    );
    expect(h.tg.texts(ALLOWED_USER).slice(0, 2)).toEqual([
      'Planted.\n\n✓ 2 rows saved',
      'Scheduled.\n\n✓ 2 jobs scheduled',
    ]);
    expect(shown).toBe('Tidied.\n\n✓ 1 row updated · 1 row deleted · 1 job paused · 1 job removed');
  });

  it('says a document was saved in the pack workspace', async () => {
    await startAlpha();
    h.tg.addFile('d1', Buffer.from('a,b\n'), 'documents/file_1.csv');
    h.model.enqueue({ text: 'Got your list.' });
    h.tg.document({
      userId: ALLOWED_USER,
      fileId: 'd1',
      fileName: 'my_list.csv',
      mimeType: 'text/csv',
    });
    await settled(h, 1);
    // The name is shown as saved: its underscore is not taken for Markdown.
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Got your list.\n\n✓ my_list.csv saved']);
  });

  it('gives none to a model that says it saved while no tool ran', async () => {
    await startAlpha();
    h.model.enqueue({ text: "Saved! I've added the fern to your notes and set a reminder." });
    h.say('remember my fern');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      "Saved! I've added the fern to your notes and set a reminder.",
    ]);
  });

  it('gives none for failed calls, a read, or a write that matched no row', async () => {
    await startAlpha();
    const shown = await turn(
      [
        {
          name: 'db_write',
          arguments: { action: 'insert', table: 'plants', values: { colour: 'red' } },
        },
        { name: 'memory', arguments: { action: 'append', file: 'MEMORY.md' } },
        { name: 'schedule', arguments: { action: 'pause', id: 'no-such-job' } },
        { name: 'memory', arguments: { action: 'read', file: 'MEMORY.md' } },
        {
          name: 'db_write',
          arguments: { action: 'delete', table: 'plants', where: { name: 'oak' } },
        },
      ],
      'I saved everything.',
      1,
    );
    expect(shown).toBe('I saved everything.');
    expect(h.logs('tool_error')).toHaveLength(3);
  });

  it('sits under the answer, above the usage footer and the pack badge', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
    await pickPackByButton(h, 'alpha');
    h.say('/usage footer on');
    await settled(h, 3);
    const shown = await turn([memory('Likes ferns.')], 'Noted.', 4);
    expect(shown).toMatch(
      /^Noted\.\n\n✓ memory updated\n\n<i>This answer: [^\n]+<\/i>\n\n— Alpha Garden$/,
    );
  });

  it("ends a scheduled run's answer with what the run changed", async () => {
    const clock = await startAlpha();
    await turn(
      [
        {
          name: 'schedule',
          arguments: {
            action: 'create',
            schedule: '2026-11-23T12:00:00Z',
            prompt: 'Log the watering.',
          },
        },
      ],
      'Will do.',
      1,
    );
    h.model.enqueue({ toolCalls: [plant('watered fern')] }, { text: 'Logged the watering.' });
    clock.advance(2 * HOUR);
    await h.tg.waitForCall('sendMessage', (c) =>
      String(c.params.text).startsWith('Logged the watering.'),
    );
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'Will do.\n\n✓ reminder set for today 12:00',
      'Logged the watering.\n\n✓ 1 row saved',
    ]);
  });
});

describe('receipts in a bundled pack', () => {
  it("come from vocab's own tools, with no change to its prompts", async () => {
    const packs = mkdtempSync(path.join(tmpdir(), 'satchel-bundled-'));
    cpSync(BUNDLED_VOCAB, path.join(packs, 'vocab'), { recursive: true });
    try {
      await h.start({ SATCHEL_PACKS: packs });
      const deck = { name: 'Spanish', front_lang: 'es', back_lang: 'en' };
      const card = { deck_id: 1, front: 'la casa', back: 'the house' };
      const shown = await turn(
        [
          { name: 'db_write', arguments: { action: 'insert', table: 'decks', values: deck } },
          { name: 'db_write', arguments: { action: 'insert', table: 'cards', values: card } },
        ],
        'Added **la casa** to your Spanish deck.',
        1,
      );
      expect(shown).toBe('Added <b>la casa</b> to your Spanish deck.\n\n✓ 2 rows saved');
    } finally {
      rmSync(packs, { recursive: true, force: true });
    }
  });
});

describe('receipts in the web chat', () => {
  it('end the answer there too', async () => {
    const c = await web.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    web.h.model.enqueue({ toolCalls: [plant('fern')] }, { text: 'Planted.' });
    await c.send('I planted a fern');
    const [answer] = await c.waitForBot(1);
    expect(shownText(answer!)).toBe('Planted.\n\n✓ 1 row saved');
  });
});
