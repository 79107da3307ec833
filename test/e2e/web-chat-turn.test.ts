import { describe, expect, it, vi } from 'vitest';
import type { Welcome } from '../../src/web/welcome.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { fixturePacks } from '../support/harness.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const web = webChatPerTest();
const { h, start } = web;

const typesSince = (c: ChatClient, from: number) => c.events.slice(from).map((e) => e.type);

describe('the web chat while a turn runs', () => {
  it('says it is working until the answer, also to a page that connects meanwhile', async () => {
    const c = await start();
    h!.model.enqueue({ text: 'Slow and steady.', delayMs: 400 });
    await c.send('take your time');
    await c.waitFor(() => c.events.find((e) => e.type === 'working'), 'the working state');
    // A page opened now is told at once, in its snapshot.
    const late = await ChatClient.open(web.chatUrl);
    await late.connect();
    try {
      const [snapshot] = late.events;
      expect(snapshot).toMatchObject({ type: 'snapshot', data: { working: true } });
      await c.waitForBot(1);
      // The answer ends the working state: the next page's snapshot says nothing of it.
      const after = await ChatClient.open(web.chatUrl);
      await after.connect();
      expect(after.events[0]!.data.working).toBeUndefined();
      after.close();
    } finally {
      late.close();
    }
    const types = typesSince(c, 0);
    expect(types.indexOf('working')).toBeLessThan(types.lastIndexOf('entry'));
  });

  it('stops the running turn from the Stop button, as /stop does, keeps its text, and answers what waited behind it', async () => {
    const c = await start({ BATCH_WINDOW_MS: '0' });
    h!.model.enqueue({ text: 'one two three four five six', trickle: true, chunkDelayMs: 150 });
    await c.send('tell me everything');
    await c.waitFor(() => c.events.find((e) => e.type === 'draft'), 'the first draft');
    // The box stays usable: a line sent now waits its turn, as on Telegram.
    await c.send('and then this');
    await c.stop();

    const aborted = await h!.model.waitForAbort();
    expect(aborted.aborted).toBe(true);
    const answers = await c.waitForBot(2);
    // The stopped answer keeps what it had streamed, marked as stopped.
    expect(answers.map(shownText)).toEqual([
      expect.stringMatching(/^one two( \w+)*\n\nStopped\.$/),
      'echo: and then this',
    ]);
    // It is stored as the answer: the model reads it in the next turn's history.
    const stored = h!.rows<{ content: string }>(
      "SELECT content FROM messages WHERE role = 'assistant' ORDER BY id",
    );
    expect(stored[0]!.content).toMatch(/^one two( \w+)*\n\n_Stopped\._$/);
    expect(h!.logs('turn_stop')).toMatchObject([{ stopped: true }]);
    // The Stop button is not a typed line: the page shows only what the owner typed.
    const typed = c.entries().filter((e) => e.kind === 'user');
    expect(typed.map((e) => e.text)).toEqual(['tell me everything', 'and then this']);
    await vi.waitFor(() =>
      expect(h!.rows("SELECT 1 FROM edge_inbox WHERE status != 'done'")).toEqual([]),
    );
  });

  it('refuses a Stop or a pick another site could forge, and the turn goes on', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
    await c.post('pick', { pack: 'beta' });
    await c.waitForBot(1);
    h!.model.enqueue({ text: 'Still here.', delayMs: 300 });
    await c.send('keep going');
    await h!.model.waitForRequest(1);
    const evil = { origin: 'http://evil.example' };
    expect((await c.post('stop', {}, evil)).status).toBe(403);
    expect((await c.post('pick', { pack: 'alpha' }, evil)).status).toBe(403);
    expect((await c.post('stop', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const answers = await c.waitForBot(2);
    expect(shownText(answers[1]!)).toBe('Still here.\n\n— Beta Books');
    expect(h!.logs('turn_stop')).toEqual([]);
    expect(h!.model.chatRequests().filter((r) => r.aborted)).toEqual([]);
  });

  it('says nothing was running when Stop is pressed between turns', async () => {
    const c = await start();
    await c.stop();
    expect((await c.waitForBot(1)).map(shownText)).toEqual(['Nothing is running right now.']);
  });

  it('takes /stop even when the conversation has no room for another line', async () => {
    const c = await start({ BATCH_WINDOW_MS: '0' });
    h!.model.enqueue({ hang: true });
    await c.send('first');
    await h!.model.waitForRequest(1);
    for (let i = 2; i <= 6; i++) await c.send(`line ${i}`);
    expect((await c.post('send', { text: 'one too many' })).status).toBe(429);

    await c.send('/stop');
    await h!.model.waitForAbort();
    await c.waitFor(
      () => c.botEntries().find((e) => shownText(e) === 'Stopped.'),
      'the stopped answer',
    );
    expect(h!.logs('turn_stop')).toMatchObject([{ stopped: true }]);
  });
});

describe('the web chat first screen and errors', () => {
  it('offers the packs with their descriptions and the commands, and picks a pack as the picker does', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) });
    const get = (path: string) => fetch(new URL(path, c.base), { headers: { cookie: c.cookie } });
    const welcome = (await (await get('/chat/welcome')).json()) as Welcome;
    expect(welcome.packs).toEqual([
      { name: 'alpha', title: 'Alpha Garden', description: "Keeps track of the user's plants." },
      { name: 'beta', title: 'Beta Books', description: 'A reading list.' },
    ]);
    expect(welcome.active).toBeUndefined();
    const commands = welcome.commands.map((m) => m.command);
    expect(commands).toEqual(expect.arrayContaining(['help', 'pack', 'new', 'stop']));
    expect(commands).not.toContain('topics');

    expect((await c.post('pick', { pack: 'nope' })).status).toBe(409);
    expect((await c.post('pick', { pack: 'beta' })).status).toBe(202);
    expect((await c.waitForBot(1)).map(shownText)).toEqual(['Now using Beta Books.']);
    await c.send('hello');
    await c.waitForBot(2);
    expect(shownText(c.botEntries()[1]!)).toBe('echo: hello\n\n— Beta Books');
    expect(((await (await get('/chat/welcome')).json()) as Welcome).active).toBe('beta');
  });

  it('shows a command in an error reply as code, as in any answer', async () => {
    const c = await start(
      {},
      { beforeStart: (_tg, model) => model.requireKey('openai', 'sk-other') },
    );
    await c.send('hello?');
    const [reply] = await c.waitForBot(1);
    expect(reply!.html).toContain('run <code>npx satchel doctor</code>.');
    expect(shownText(reply!)).not.toContain('`');
  });
});
