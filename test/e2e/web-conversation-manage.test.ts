/**
 * What the owner does to a web conversation (SPEC §16), over HTTP: pin (first in the list,
 * kept across a restart), delete with undo (once it lapses, its messages, uploads and jobs go
 * and the page is told how many; the ledger keeps its rows, named by the title), search over
 * titles and messages, export as Markdown or JSON.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNDO_MS } from '../../src/web/conversation-deletion.ts';
import type { ChatClient } from '../support/chat-client.ts';
import { fixturePacks } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { webPagesPerTest } from '../support/web-pages.ts';

const web = webPagesPerTest();
const { h, page } = web;

/** The app with the alpha and beta packs, on `clock` when one is given. */
const start = (clock?: JumpClock) =>
  web.start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) }, { app: clock ? { clock } : {} });

/** A conversation with one exchange (its first line `text`); its id. */
async function talked(c: ChatClient, text: string): Promise<string> {
  const made = await c.newConversation();
  const there = await page(made.id);
  expect((await there.post('pick', { pack: 'alpha' })).status).toBe(202);
  await there.waitForBot(1);
  await there.send(text);
  await there.waitForBot(2);
  return made.id;
}

describe('managing web conversations', () => {
  it('pins one first in the list, and keeps it pinned after a restart', async () => {
    await start();
    const c = await page();
    const older = await talked(c, 'seeds for spring');
    const newer = await talked(c, 'books about bees');
    expect((await c.conversations()).slice(0, 2).map((x) => x.id)).toEqual([newer, older]);

    expect((await c.post('pin', { conversation: older, pinned: true })).status).toBe(200);
    expect((await c.conversations())[0]).toMatchObject({ id: older, pinned: true });
    expect((await c.post('pin', { conversation: older, pinned: 'yes' })).status).toBe(400);
    expect((await c.post('pin', { conversation: 'w-nope', pinned: true })).status).toBe(404);

    await h.restart();
    const after = await page();
    expect((await after.conversations())[0]).toMatchObject({ id: older, pinned: true });
    // A page that names none still opens the one used last, not the pinned one.
    const snapshot = after.events.find((e) => e.type === 'snapshot');
    expect(snapshot?.data.conversation).toBe(newer);
  });

  it('deletes one with undo, then removes its messages, uploads and jobs and says how many', async () => {
    const clock = new JumpClock();
    await start(clock);
    const c = await page();
    const id = await talked(c, 'my secret garden plans');
    const there = await page(id);
    const upload = await there.upload({
      kind: 'photo',
      name: 'fern.png',
      type: 'image/png',
      data: PNG,
    });
    expect(upload.status).toBeLessThan(300);
    await there.waitForBot(3);
    h.exec(
      `INSERT INTO jobs (id, pack, source, kind, platform, chat_id, schedule, prompt, next_run_at, created_at)
       VALUES ('j-del', 'alpha', 'tool', 'cron', 'web', ?, '0 8 * * *', 'Water.', NULL, 1)`,
      id,
    );
    const folder = path.join(h.home, 'media', 'web', id);
    expect(readdirSync(folder)).toHaveLength(1);
    const ledger = h.rows<{ n: number }>(
      'SELECT count(*) AS n FROM usage_events WHERE chat_id = ?',
      id,
    )[0]!.n;
    expect(ledger).toBeGreaterThan(0);

    // Deleted: gone from the list at once, undoable.
    const deleted = await c.post('delete', { conversation: id });
    expect(deleted.status).toBe(202);
    expect(await deleted.json()).toEqual({ undo_ms: UNDO_MS });
    expect((await c.conversations()).map((x) => x.id)).not.toContain(id);
    expect((await c.get(`/chat/deleted?c=${id}`)).status).toBe(202);
    expect((await c.post('undo', { conversation: id })).status).toBe(200);
    expect((await c.conversations()).map((x) => x.id)).toContain(id);

    // Deleted again, and the undo lapses: everything of it goes, and the page learns how much.
    expect((await c.post('delete', { conversation: id })).status).toBe(202);
    clock.advance(UNDO_MS);
    const removed = await c.get(`/chat/deleted?c=${id}`);
    // Two jobs: alpha's own (its manifest's cron, made when it was picked) and the one planted.
    expect(removed).toEqual({ status: 200, body: { messages: 4, uploads: 1, jobs: 2 } });
    expect((await c.post('undo', { conversation: id })).status).toBe(409);
    expect(h.rows('SELECT id FROM sessions WHERE address = ?', `web:${id}`)).toEqual([]);
    expect(h.rows('SELECT id FROM jobs WHERE chat_id = ?', id)).toEqual([]);
    expect(existsSync(folder)).toBe(false);
    // The search index forgot it too.
    expect((await c.get<{ found: unknown[] }>('/chat/search?q=garden')).body.found).toEqual([]);
    // The ledger keeps its rows, named by the title.
    expect(
      h.rows<{ n: number }>('SELECT count(*) AS n FROM usage_events WHERE chat_id = ?', id)[0]!.n,
    ).toBe(ledger);
    expect(h.rows('SELECT title FROM web_conversations WHERE id = ?', id)).toEqual([
      { title: 'my secret garden plans' },
    ]);
    const usage = await fetch(new URL('/api/usage', c.base), { headers: { cookie: c.cookie } });
    const turns = ((await usage.json()) as { recent_turns: { chat: string }[] }).recent_turns;
    expect(turns.map((t) => t.chat)).toContain('my secret garden plans');
    // Refused everywhere from now on; one never deleted has nothing to report.
    expect((await c.get(`/chat/deleted?c=w-0000000000000000`)).status).toBe(404);
    expect((await c.get(`/chat/export?c=${id}`)).status).toBe(404);
  });

  it('empties at the next start a conversation whose undo a stop cut short', async () => {
    await start();
    const c = await page();
    const id = await talked(c, 'short lived');
    expect((await c.post('delete', { conversation: id })).status).toBe(202);
    await h.restart();
    expect(h.rows('SELECT id FROM sessions WHERE address = ?', `web:${id}`)).toEqual([]);
    const again = await page();
    expect((await again.conversations()).map((x) => x.id)).not.toContain(id);
  });

  it('finds conversations by their titles and by their messages', async () => {
    await start();
    const c = await page();
    const tomatoes = await talked(c, 'tomatoes need sun');
    const named = await talked(c, 'hello there');
    expect((await c.post('rename', { conversation: named, title: 'Trip to Lisbon' })).status).toBe(
      200,
    );
    const search = async (q: string) =>
      (
        await c.get<{ found: { id: string; title: string; snippet?: string }[] }>(
          `/chat/search?q=${encodeURIComponent(q)}`,
        )
      ).body.found;

    expect(await search('lisbon')).toEqual([{ id: named, title: 'Trip to Lisbon', pinned: false }]);
    // "echo: tomatoes need sun — Alpha Garden" is the answer: the message is found, its words marked.
    const found = await search('SUN');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: tomatoes, title: 'tomatoes need sun' });
    expect(await search('nothing-like-this')).toEqual([]);
    expect(await search('  ')).toEqual([]);
  });

  it('exports one as Markdown and as JSON, a download named by its title', async () => {
    await start();
    const c = await page();
    const id = await talked(c, 'Plans for the weekend');
    const get = (format: string) =>
      fetch(new URL(`/chat/export?c=${id}&format=${format}`, c.base), {
        headers: { cookie: c.cookie },
      });

    const md = await get('md');
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('content-disposition')).toContain('filename="Plans-for-the-weekend.md"');
    const text = await md.text();
    expect(text).toMatch(/^# Plans for the weekend\n/);
    expect(text).toMatch(/### You · \d{4}-\d\d-\d\dT[\d:.]+Z\n\nPlans for the weekend\n/);
    expect(text).toContain('### satchel · ');
    expect(text).toContain('echo: Plans for the weekend');

    const json = await get('json');
    expect(json.headers.get('content-disposition')).toContain('Plans-for-the-weekend.json');
    const body = (await json.json()) as { id: string; title: string; messages: unknown[] };
    expect(body).toMatchObject({ id, title: 'Plans for the weekend' });
    expect(body.messages).toEqual([
      { role: 'user', text: 'Plans for the weekend', at: expect.any(String) },
      { role: 'assistant', text: 'echo: Plans for the weekend', at: expect.any(String) },
    ]);
    expect((await get('pdf')).status).toBe(400);
  });
});

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
