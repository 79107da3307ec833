import { describe, expect, it, vi } from 'vitest';
import { BUSY } from '../../src/web/http.ts';
import { lastUserText, systemText } from '../fakes/model-server.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { ALLOWED_USER, fixturePacks, type startHarness } from '../support/harness.ts';
import { webChatPerTest } from '../support/web-chat.ts';

type Options = NonNullable<Parameters<typeof startHarness>[1]>;

const web = webChatPerTest();
const { h, connect } = web;

/** The app on the fakes, and a client signed in with the chat address it printed. */
const start = (env: Record<string, string> = {}, app: Options['app'] = {}) =>
  web.start(env, { app });

/** Calls the fake Telegram got that reach a chat (anything but connecting and polling). */
const telegramChatCalls = () => h!.tg.calls().filter((c) => c.params.chat_id !== undefined);

describe('the web chat beside the Telegram bot', () => {
  it('streams an answer as drafts, then the final message; books the turn as web; sends nothing to Telegram', async () => {
    const c = await start();
    const answer = 'Lima is the **capital** of Peru, on the Pacific coast.';
    h!.model.enqueue({ text: answer, chunks: 4, chunkDelayMs: 250 });
    await c.send('what is the capital of Peru?');

    const [reply] = await c.waitForBot(1);
    expect(reply!.html).toBe('Lima is the <b>capital</b> of Peru, on the Pacific coast.');
    // The line typed shows first, then drafts that grow, then the answer.
    const types = c.events.map((e) => e.type);
    expect(types[0]).toBe('snapshot');
    expect(c.events[1]).toMatchObject({
      type: 'entry',
      data: { entry: { kind: 'user', text: 'what is the capital of Peru?' } },
    });
    const drafts = c.events.filter((e) => e.type === 'draft').map((e) => shownText(e.data));
    expect(drafts.length).toBeGreaterThan(0);
    expect(drafts[0]!.length).toBeLessThan(shownText(reply!).length);
    for (const draft of drafts) expect(shownText(reply!).startsWith(draft)).toBe(true);
    expect(types.lastIndexOf('draft')).toBeLessThan(types.lastIndexOf('entry'));

    expect(lastUserText(h!.model.chatRequests()[0]!)).toBe('what is the capital of Peru?');
    // The conversation is the web edge's own, not the owner's Telegram id (SPEC §16).
    const listed = await fetch(new URL('/chat/conversations', c.base), {
      headers: { cookie: c.cookie },
    });
    const [{ id }] = ((await listed.json()) as { conversations: { id: string }[] })
      .conversations as [{ id: string }];
    expect(id).toMatch(/^w-[0-9a-f]{16}$/);
    // The answer, then the title the model wrote after this first exchange (SPEC §16).
    await expect
      .poll(() => h!.rows('SELECT kind, chat_id, ok FROM usage_events'))
      .toEqual([
        { kind: 'llm', chat_id: id, ok: 1 },
        { kind: 'llm', chat_id: id, ok: 1 },
      ]);
    expect(h!.rows('SELECT status FROM edge_inbox')).toEqual([{ status: 'done' }]);
    const usage = await fetch(new URL('/api/usage', c.base), { headers: { cookie: c.cookie } });
    const overview = (await usage.json()) as { recent_turns: { source: string; chat: string }[] };
    // Named by its title (the fake model's title is the first line), not by its id.
    expect(overview.recent_turns).toMatchObject([
      { source: 'web', chat: 'what is the capital of Peru?' },
    ]);
    // The log names the turn's source as the dashboard does.
    expect(h!.logs('turn_completed')).toMatchObject([{ source: 'web', address: `web:${id}` }]);
    expect(telegramChatCalls()).toEqual([]);
    // Telegram still works beside it, and its turns stay `chat`.
    h!.tg.text({ userId: ALLOWED_USER, text: 'and on Telegram?' });
    await h!.tg.waitForCall('sendMessage');
    expect(h!.tg.texts(ALLOWED_USER)).toEqual(['echo: and on Telegram?']);
    await vi.waitFor(() => expect(h!.logs('turn_completed')).toHaveLength(2));
    expect(h!.logs('turn_completed')[1]).toMatchObject({ source: 'chat' });
    expect(c.botEntries()).toHaveLength(1);
  });

  it('shows each piece of a streamed answer as it comes, not once a second as on Telegram', async () => {
    const c = await start();
    // Eight pieces, 400 ms apart: slower than the web's cadence (125 ms), so each piece is one
    // update of the page; Telegram's one edit a second would merge them into three or four.
    const pieces = 8;
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    h!.model.enqueue({ text: answer, chunks: pieces, chunkDelayMs: 400 });
    await c.send('stream it');
    const [reply] = await c.waitForBot(1);
    expect(shownText(reply!)).toBe(answer);
    const drafts = c.events.filter((e) => e.type === 'draft').map((e) => shownText(e.data));
    // The last piece may go straight into the final message.
    expect(drafts.length).toBeGreaterThanOrEqual(pieces - 1);
    expect(drafts.length).toBeLessThanOrEqual(pieces);
    for (const [i, draft] of drafts.entries()) {
      expect(answer.startsWith(draft)).toBe(true);
      if (i > 0) expect(draft.length).toBeGreaterThan(drafts[i - 1]!.length);
    }
  });

  it('runs commands and the pack picker, with buttons that press', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
    await c.send('hello there');
    const [picker] = await c.waitForBot(1);
    expect(shownText(picker!)).toBe('Which pack should answer here?');
    const buttons = picker!.buttons!.flat();
    expect(buttons.map((b) => b.text)).toEqual(['Alpha Garden', 'Beta Books']);

    // A button the page does not show cannot be pressed.
    const forged = await c.post('press', { message: picker!.id, data: 'pack:nope' });
    expect(forged.status).toBe(409);
    await c.press(picker!.id, buttons[1]!.data);
    // The picker turns into the choice, and the parked line is answered by that pack.
    const [, answer] = await c.waitForBot(2);
    expect(shownText(answer!)).toBe('echo: hello there\n\n— Beta Books');
    const edit = c.events.find((e) => e.type === 'edit')?.data.entry;
    expect(edit).toEqual({
      kind: 'bot',
      id: picker!.id,
      at: picker!.at,
      html: 'Pack: <b>Beta Books</b>',
    });

    await c.send('/help');
    const [help] = (await c.waitForBot(3)).slice(2);
    expect(shownText(help!)).toContain('/pack');

    // /pack switches to the other pack: expected, so no tg_route_session_stale warning.
    await c.send('/pack');
    const again = (await c.waitForBot(4))[3]!;
    await c.press(again.id, again.buttons!.flat()[0]!.data);
    await c.send('plants please');
    await vi.waitFor(() =>
      expect(c.botEntries().map(shownText)).toContain('echo: plants please\n\n— Alpha Garden'),
    );
    expect(systemText(h!.model.chatRequests()[1]!)).toContain('ALPHA-PERSONA');
    expect(h!.logs('tg_route_session_stale').filter((l) => l.level >= 40)).toEqual([]);
    expect(h!.rows("SELECT count(*) AS n FROM edge_inbox WHERE status = 'pending'")).toEqual([
      { n: 0 },
    ]);
    expect(telegramChatCalls()).toEqual([]);
  });

  it('shows the recent conversation to a page that connects later', async () => {
    const c = await start();
    await c.send('first line');
    await c.waitForBot(1);
    const later = await ChatClient.open(web.chatUrl);
    await later.connect();
    try {
      const [snapshot] = later.events;
      expect(snapshot!.type).toBe('snapshot');
      expect(snapshot!.data.entries.map((e: { kind: string }) => e.kind)).toEqual(['user', 'bot']);
      expect(shownText(snapshot!.data.entries[1])).toBe('echo: first line');
    } finally {
      later.close();
    }
  });

  it('answers a line typed before a crash once, after the restart', async () => {
    const c = await start({}, { shutdownGraceMs: 300 });
    h!.model.enqueue({ hang: true });
    await c.send('are you there?');
    await h!.model.waitForRequest(1);
    await h!.stop();
    expect(h!.logs('satchel_stopped')).toMatchObject([{ clean: false }]);

    h!.model.enqueue({ text: 'Here now.' });
    await h!.restart();
    const again = await connect();
    const replies = await again.waitForBot(1);
    expect(replies.map(shownText)).toEqual(['Here now.']);
    // The new run shows the line it replayed, and the answer.
    expect(again.entries().map((e) => e.kind)).toEqual(['user', 'bot']);
    expect(h!.rows('SELECT status FROM edge_inbox')).toEqual([{ status: 'done' }]);
    expect(h!.rows("SELECT content FROM messages WHERE role = 'user'")).toEqual([
      { content: 'are you there?' },
    ]);
    expect(h!.model.chatRequests()).toHaveLength(2);
  });
});

describe('the web chat and what it keeps', () => {
  it('keeps a pasted bot token and sk- key in the conversation, redacted in edge_inbox', async () => {
    const c = await start();
    const token = `7012345678:AAH${'q'.repeat(32)}`;
    const key = 'sk-proj-AbCdEf0123456789_abcdefGHIJ';
    const typed = `my bot ${token} and my key ${key}`;
    await c.send(typed);
    await c.waitForBot(1);
    expect(lastUserText(h!.model.chatRequests()[0]!)).toBe(typed);
    expect(h!.rows("SELECT content FROM messages WHERE role = 'user'")).toEqual([
      { content: typed },
    ]);
    const [row] = h!.rows<{ payload: string }>('SELECT payload FROM edge_inbox');
    expect(JSON.parse(row!.payload)).toMatchObject({
      kind: 'text',
      text: 'my bot [redacted] and my key [redacted]',
    });
    expect(row!.payload).not.toContain(token);
    expect(row!.payload).not.toContain(key);
  });

  it('answers 429 with the reason to a line a busy conversation cannot take, and keeps none of it', async () => {
    const c = await start({ BATCH_WINDOW_MS: '0' });
    h!.model.enqueue({ hang: true });
    await c.send('first');
    await h!.model.waitForRequest(1);
    // Five lines wait behind the running turn; the sixth is refused at once.
    for (let i = 2; i <= 6; i++) await c.send(`line ${i}`);
    const refused = await c.post('send', { text: 'one too many' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: BUSY, busy: true });
    expect(h!.logs('turn_rejected_busy')).toHaveLength(1);
    expect(h!.rows('SELECT 1 FROM edge_inbox')).toHaveLength(6);
    const typed = c.entries().filter((e) => e.kind === 'user');
    expect(typed.map((e) => e.text)).toEqual([
      'first',
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      'line 6',
    ]);
  });
});

describe('the web chat alone, without TELEGRAM_BOT_TOKEN', () => {
  it('answers, reports healthy, and makes no Bot API call at all', async () => {
    const c = await start({ TELEGRAM_BOT_TOKEN: '' });
    await c.send('hi');
    expect((await c.waitForBot(1)).map(shownText)).toEqual(['echo: hi']);
    const health = await fetch(new URL('/healthz', c.base));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      ok: true,
      edges: { tg: { ok: true, mode: 'none', polling: false } },
      db_writable: true,
    });
    expect(h!.logs('telegram_off')).toHaveLength(1);
    await h!.stop();
    expect(h!.tg.calls()).toEqual([]);
  });
});

describe('the web chat page', () => {
  it('serves every file the page links, the style sheet it shares with the dashboard too', async () => {
    const c = await start();
    const get = (path: string) => fetch(new URL(path, c.base), { headers: { cookie: c.cookie } });
    const page = await get('/chat');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const linked = [...(await page.text()).matchAll(/(?:href|src)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(linked).toEqual([
      '/chat/manifest.webmanifest',
      '/chat/icon-192.png',
      '/base.css',
      '/chat/chat.css',
      '/chat/view.css',
      '/chat/chat.js',
    ]);
    const types: Record<string, string> = {
      webmanifest: 'application/manifest+json',
      png: 'image/png',
      css: 'text/css; charset=utf-8',
      js: 'text/javascript; charset=utf-8',
    };
    for (const path of linked) {
      const file = await get(path);
      expect(file.status, path).toBe(200);
      expect(file.headers.get('content-type'), path).toBe(types[path.split('.').pop()!]);
      expect((await file.arrayBuffer()).byteLength, path).toBeGreaterThan(100);
    }
  });
});

describe('the web chat keeps others out', () => {
  it('answers 401 and no data without the token', async () => {
    const c = await start();
    await c.send('secret plans');
    await c.waitForBot(1);
    for (const [method, path] of [
      ['GET', '/chat'],
      ['GET', '/chat/events'],
      ['GET', '/chat/chat.js'],
      ['POST', '/chat/send'],
      ['POST', '/chat/press'],
    ] as const) {
      const response = await fetch(new URL(path, c.base), {
        method,
        headers: { 'content-type': 'application/json', origin: c.base.origin },
        ...(method === 'POST' ? { body: '{"text":"let me in"}' } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(await response.text()).not.toContain('secret');
    }
    const wrong = await fetch(new URL('/chat/events', c.base), {
      headers: { cookie: c.cookie.replace(/=.*/, '=wrong') },
    });
    expect(wrong.status).toBe(401);
    expect(h!.model.chatRequests()).toHaveLength(1);
  });

  it('refuses a POST another site could forge', async () => {
    const c = await start();
    const cases: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'text/plain' },
    ];
    for (const headers of cases)
      expect(
        (await c.post('send', { text: 'forged' }, headers)).status,
        JSON.stringify(headers),
      ).toBe(403);
    // A script with the token in a header (no cookie) is no browser being tricked.
    const bearer = await fetch(new URL('/chat/send', c.base), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${h!.env.DASHBOARD_TOKEN ?? tokenOf(web.chatUrl)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ text: 'from a script' }),
    });
    expect(bearer.status).toBe(202);
    const replies = await c.waitForBot(1);
    expect(replies.map(shownText)).toEqual(['echo: from a script']);
    expect(h!.model.chatRequests().map(lastUserText)).toEqual(['from a script']);
  });

  it('shows markup in a model answer as text', async () => {
    const c = await start();
    const hostile =
      'Look: <script>alert(1)</script> <img src=x onerror="alert(2)"> [x](javascript:alert(3))';
    h!.model.enqueue({ text: hostile });
    await c.send('be nasty');
    const [reply] = await c.waitForBot(1);
    expect(reply!.html).not.toMatch(/<(script|img)|javascript:|href/i);
    expect(shownText(reply!)).toBe(
      'Look: <script>alert(1)</script> <img src=x onerror="alert(2)"> x',
    );
  });
});

function tokenOf(chatUrl: string): string {
  return decodeURIComponent(chatUrl.slice(chatUrl.indexOf('?token=') + 7));
}
