/**
 * The bundled `assistant` pack end to end (SPEC §3, §8, §13, §14), where a pack test cannot
 * go: with all the bundled packs installed, a new conversation's first message is answered by
 * it with no picker; without a search provider web_search is not offered and the prompt says
 * what research needs, with one (SearXNG, on the fake) a search is offered, cited and booked at
 * the catalog's $0; the morning briefing starts off, is turned on for this chat only with
 * `/jobs on ID`, and runs at 07:00 through the real pipeline, grammY and the OpenAI SDK.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { lastUserText, systemText, toolResults } from '../fakes/model-requests.ts';
import { FakeSearch } from '../fakes/search-server.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const h = harnessPerTest();
const PACKS = fileURLToPath(new URL('../../packs', import.meta.url));
const HOUR = 3_600_000;
const BOB = 222;

/** The tool names the model was offered in a request. */
const offered = (request: { body: { tools?: { function: { name: string } }[] } }) =>
  (request.body.tools ?? []).map((t) => t.function.name);

/** The briefing skill's to-do query, as the model reads it there. */
function briefingSql(): string {
  const text = readFileSync(
    path.join(PACKS, 'assistant', 'skills', 'briefing', 'SKILL.md'),
    'utf8',
  );
  return /```sql\n([\s\S]*?)```/.exec(text)![1]!.trim();
}

describe('the assistant pack, bundled and the default', () => {
  it('answers the first message without a picker; without a search provider it says what research needs', async () => {
    await h.start({ SATCHEL_PACKS: PACKS });
    h.model.enqueue({ text: 'Hi! I can keep your to-dos and reminders.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'Hi! I can keep your to-dos and reminders.\n\n— Assistant',
    ]);
    expect(h.tg.calls('sendMessage').some((c) => c.params.reply_markup)).toBe(false);
    const [request] = h.model.chatRequests();
    const system = systemText(request!);
    expect(system).toContain('# Active pack: Assistant');
    expect(system).toContain('# Web search is off');
    expect(system).toContain('WEB_SEARCH_PROVIDER=brave with BRAVE_API_KEY');
    expect(offered(request!)).not.toContain('web_search');
    expect(offered(request!)).toContain('web_fetch');
    expect(h.rows('SELECT active_pack FROM conversation_routes')).toEqual([
      { active_pack: 'assistant' },
    ]);
  });

  it('sums up a document and acts on a voice note: their text reaches it with its summarize skill', async () => {
    await h.start({ SATCHEL_PACKS: PACKS, STT_PROVIDER: 'openai' });
    const notes = 'Lease renewal.\nThe rent rises to 950 EUR from March 1.\nReply by February 10.';
    h.tg.addFile('doc1', Buffer.from(notes), 'documents/lease.txt');
    h.model.enqueue({ text: 'The rent goes up to 950 EUR on March 1; answer by February 10.' });
    h.tg.document({
      userId: ALLOWED_USER,
      fileId: 'doc1',
      fileName: 'lease.txt',
      mimeType: 'text/plain',
    });
    await settled(h, 1);
    const [asked] = h.model.chatRequests();
    expect(systemText(asked!)).toContain('Sum up what the owner sends');
    expect(lastUserText(asked!)).toContain('The rent rises to 950 EUR from March 1.');
    // Kept in the pack's files too, as every document is, and the receipt says so.
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'The rent goes up to 950 EUR on March 1; answer by February 10.\n\n✓ lease.txt saved\n\n— Assistant',
    ]);

    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_2.oga');
    h.model.enqueueTranscription({ text: 'remind me to call the landlord tomorrow at nine' });
    h.model.enqueue({ text: 'I will remind you tomorrow at 09:00 to call the landlord.' });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 2);
    const heard = lastUserText(h.model.chatRequests()[1]!);
    expect(heard).toMatch(/voice message, transcribed/i);
    expect(heard).toContain('remind me to call the landlord tomorrow at nine');
    // The reminder is the assistant's: the schedule tool is offered with its skill.
    expect(offered(h.model.chatRequests()[1]!)).toContain('schedule');
    expect(h.tg.texts(ALLOWED_USER)).toHaveLength(2);
  });

  it('with SearXNG, offers web_search, cites what it found and books the search at $0', async () => {
    const api = await FakeSearch.start();
    try {
      await h.start({
        SATCHEL_PACKS: PACKS,
        WEB_SEARCH_PROVIDER: 'searxng',
        SEARXNG_URL: api.url,
      });
      h.model.enqueue(
        { toolCalls: [{ name: 'web_search', arguments: { query: 'apple cider', count: 2 } }] },
        { text: 'Cider is made from apples ([Cider](https://example.org/cider)).' },
      );
      h.tg.text({ userId: ALLOWED_USER, text: 'what is cider made of?' });
      await settled(h, 1);

      const [first, second] = h.model.chatRequests();
      expect(offered(first!)).toContain('web_search');
      expect(systemText(first!)).not.toContain('# Web search is off');
      expect(toolResults(second!)[0]).toContain('https://example.org/cider');
      expect(h.tg.texts(ALLOWED_USER)[0]).toContain(
        '<a href="https://example.org/cider">Cider</a>',
      );
      expect(
        h.rows(
          "SELECT provider, pack, cost_usd, price_known FROM usage_events WHERE kind = 'search'",
        ),
      ).toEqual([{ provider: 'searxng', pack: 'assistant', cost_usd: 0, price_known: 1 }]);
    } finally {
      await h.close();
      await api.stop();
    }
  });

  it('the morning briefing starts off; /jobs on turns it on for this chat only, and it runs at 07:00', async () => {
    // 20:00 UTC on Monday 30 November 2026: 21:00 in Berlin.
    const clock = new JumpClock(Date.UTC(2026, 10, 30, 20, 0, 0));
    await h.start(
      {
        SATCHEL_PACKS: PACKS,
        SATCHEL_TIMEZONE: 'Europe/Berlin',
        ALLOWED_USER_IDS: `${ALLOWED_USER},${BOB}`,
      },
      { app: { clock } },
    );
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'todos',
              values: { title: 'Pay rent', due_on: '2026-12-01' },
            },
          },
        ],
      },
      { text: 'Added Pay rent (tomorrow).' },
    );
    h.tg.text({ userId: ALLOWED_USER, text: 'pay rent tomorrow' });
    await settled(h, 1);
    h.model.enqueue({ text: 'Hello Bob.' });
    h.tg.text({ userId: BOB, text: 'hi' });
    await settled(h, 2);

    // Each chat bound to the assistant has its own briefing job, off.
    const jobs = () =>
      h.rows<{ id: string; chat_id: string; enabled: number }>(
        "SELECT id, chat_id, enabled FROM jobs WHERE pack = 'assistant' AND skill = 'briefing' ORDER BY chat_id",
      );
    await vi.waitFor(() => expect(jobs()).toHaveLength(2));
    const mine = jobs().find((j) => j.chat_id === String(ALLOWED_USER))!;
    expect(jobs().map((j) => j.enabled)).toEqual([0, 0]);

    h.tg.text({ userId: ALLOWED_USER, text: '/jobs' });
    await settled(h, 3);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(
      `${mine.id}: "0 7 * * *" (pack default), skill briefing — off: /jobs on ${mine.id} turns it on here`,
    );
    h.tg.text({ userId: ALLOWED_USER, text: `/jobs on ${mine.id}` });
    await settled(h, 4);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(
      `Job ${mine.id} is on here (skill briefing): next run tomorrow 07:00 (Europe/Berlin).`,
    );
    expect(jobs().map((j) => [j.chat_id, j.enabled])).toEqual([
      [String(ALLOWED_USER), 1],
      [String(BOB), 0],
    ]);

    // 07:00 in Berlin: the owner's briefing runs (Bob's does not), its to-do from SQL.
    const before = h.model.chatRequests().length;
    h.model.enqueue(
      { toolCalls: [{ name: 'db_query', arguments: { sql: briefingSql() } }] },
      { text: '☀️ Good morning — Tuesday 1 December. Due today: Pay rent.' },
    );
    clock.advance(10 * HOUR);
    await h.tg.waitForCall('sendMessage', (c) =>
      String(c.params.text).startsWith('☀️ Good morning'),
    );
    await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(1));
    expect(h.logs('job_run')[0]).toMatchObject({ jobId: mine.id });
    const run = h.model.chatRequests().slice(before);
    expect(systemText(run[0]!)).toContain('# Skill for this turn: briefing');
    expect(JSON.parse(toolResults(run[1]!)[0]!)).toMatchObject({
      columns: ['id', 'title', 'due_on', 'overdue', 'someday', 'done_yesterday'],
      rows: [[1, 'Pay rent', '2026-12-01', 0, 0, 0]],
    });
    expect(h.tg.texts(BOB)).toEqual(['Hello Bob.\n\n— Assistant']);

    // Bob turns his own on by asking: the model resumes his chat's job with the schedule tool.
    const bobs = jobs().find((j) => j.chat_id === String(BOB))!;
    h.model.enqueue(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'resume', id: bobs.id } }] },
      { text: '☀️ Your briefing comes at 07:00 every day, here.' },
    );
    h.tg.text({ userId: BOB, text: 'turn on my morning briefing' });
    await vi.waitFor(() => expect(h.tg.texts(BOB)).toHaveLength(2));
    expect(h.tg.texts(BOB)[1]).toContain('☀️ Your briefing comes at 07:00 every day, here.');
    expect(jobs().map((j) => [j.chat_id, j.enabled])).toEqual([
      [String(ALLOWED_USER), 1],
      [String(BOB), 1],
    ]);
  });
});
