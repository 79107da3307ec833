/**
 * The web chat's conversations (SPEC §16): listed, made, renamed; each its own address, so
 * each is bound to its own pack and keeps its own session; a restart keeps them all.
 */
import { describe, expect, it, vi } from 'vitest';
import { systemText, userTexts } from '../fakes/model-requests.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { fixturePacks } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { webPagesPerTest } from '../support/web-pages.ts';

const web = webPagesPerTest();
const { h, page } = web;

/** The app with the alpha and beta packs, on `clock` when one is given. */
const start = (clock?: JumpClock) =>
  web.start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']) }, { app: clock ? { clock } : {} });

/** Picks `pack` on conversation `c`'s first screen and says `text` there; the answer. */
async function bind(c: ChatClient, pack: string, text: string): Promise<string> {
  expect((await c.post('pick', { pack })).status).toBe(202);
  await c.waitForBot(1);
  await c.send(text);
  return shownText((await c.waitForBot(2))[1]!);
}

describe('web conversations', () => {
  it('lists one to start with, makes a new one, renames it, and refuses unknown ones', async () => {
    await start();
    const c = await page();
    const [first, ...others] = await c.conversations();
    expect(others).toEqual([]);
    expect(first!.title).toBe('New conversation');
    expect(first!.id).toMatch(/^w-[0-9a-f]{16}$/);

    // The first line typed names it.
    await c.send('what should I read next?');
    await c.waitForBot(1);
    expect((await c.conversations())[0]!.title).toBe('what should I read next?');

    const made = await c.newConversation();
    expect(made.id).not.toBe(first!.id);
    expect(made.title).toBe('New conversation');
    expect((await c.conversations()).map((x) => x.id).sort()).toEqual([first!.id, made.id].sort());

    const rename = (body: unknown) => c.post('rename', body);
    expect((await rename({ conversation: made.id, title: '  Garden  plans ' })).status).toBe(200);
    expect((await c.conversations()).find((x) => x.id === made.id)!.title).toBe('Garden plans');
    expect((await rename({ conversation: made.id, title: '   ' })).status).toBe(400);
    expect((await rename({ conversation: made.id, title: 'x'.repeat(81) })).status).toBe(400);
    expect((await rename({ conversation: 'w-nope', title: 'Hi' })).status).toBe(404);
    // A named conversation keeps its name when its first line comes.
    const named = await page(made.id);
    await named.send('hello');
    await named.waitForBot(1);
    expect((await c.conversations()).find((x) => x.id === made.id)!.title).toBe('Garden plans');

    // A conversation that does not exist is refused everywhere, and nothing is taken.
    const nowhere = web.keep(await ChatClient.open(web.chatUrl));
    nowhere.conversation = 'w-0000000000000000';
    await expect(nowhere.connect()).rejects.toThrow(/404/);
    expect((await nowhere.post('send', { text: 'lost?' })).status).toBe(404);
    expect((await nowhere.get('/chat/welcome?c=w-0000000000000000')).status).toBe(404);
    expect(h.rows("SELECT count(*) AS n FROM edge_inbox WHERE payload LIKE '%lost?%'")).toEqual([
      { n: 0 },
    ]);
  });

  it('binds two conversations to different packs, each answered by its own and showing its messages, also after a restart', async () => {
    await start();
    const books = await page();
    const booksId = (await books.conversations())[0]!.id;
    books.conversation = booksId;
    const garden = await page((await books.newConversation()).id);
    expect(await bind(books, 'beta', 'remember: I am reading **Dune**')).toBe(
      'echo: remember: I am reading Dune\n\n— Beta Books',
    );
    expect(await bind(garden, 'alpha', 'remember: my fern is Bob')).toBe(
      'echo: remember: my fern is Bob\n\n— Alpha Garden',
    );
    // Each page saw only its own conversation.
    expect(books.entries().map((e) => e.text ?? shownText(e))).not.toContain(
      'remember: my fern is Bob',
    );
    const welcome = async (c: ChatClient, id: string) =>
      (await c.get<{ active?: string }>(`/chat/welcome?c=${id}`)).body.active;
    expect(await welcome(books, booksId)).toBe('beta');
    expect(await welcome(books, garden.conversation!)).toBe('alpha');

    await h.restart();
    const later = await page();
    const listed = await later.conversations();
    expect(listed.map((c) => c.id).sort()).toEqual([booksId, garden.conversation!].sort());
    expect(await welcome(later, booksId)).toBe('beta');
    expect(await welcome(later, garden.conversation!)).toBe('alpha');

    const booksAgain = await page(booksId);
    const gardenAgain = await page(garden.conversation);
    // Each page opens on what was said there before the restart, once, and nothing else (the
    // answer as stored: without the pack's badge, which is added as it is sent).
    const shown = (c: ChatClient) => c.entries().map((e) => `${e.kind}: ${shownText(e)}`);
    const booksBefore = [
      'user: remember: I am reading **Dune**',
      'bot: echo: remember: I am reading Dune',
    ];
    expect(shown(booksAgain)).toEqual(booksBefore);
    // The answer's Markdown rendered as a live answer is.
    expect(booksAgain.botEntries()[0]!.html).toBe('echo: remember: I am reading <b>Dune</b>');
    expect(shown(gardenAgain)).toEqual([
      'user: remember: my fern is Bob',
      'bot: echo: remember: my fern is Bob',
    ]);
    const before = h.model.chatRequests().length;
    await booksAgain.send('what am I reading?');
    await booksAgain.waitForBot(2);
    await gardenAgain.send('what is my fern called?');
    await gardenAgain.waitForBot(2);
    // A reload after the new answer: the stored history and this run's lines, each once.
    const reloaded = await page(booksId);
    expect(shown(reloaded)).toEqual([
      ...booksBefore,
      'user: what am I reading?',
      ...shown(booksAgain).slice(3),
    ]);
    expect(shown(reloaded)).toHaveLength(4);
    await vi.waitFor(() => expect(h.model.chatRequests().length).toBe(before + 2));
    const [toBooks, toGarden] = h.model.chatRequests().slice(before);
    // Each turn has its own pack and its own history, and not the other's.
    expect(systemText(toBooks!)).toContain('BETA-PERSONA');
    expect(userTexts(toBooks!).join('\n')).toContain('I am reading **Dune**');
    expect(userTexts(toBooks!).join('\n')).not.toContain('fern');
    expect(systemText(toGarden!)).toContain('ALPHA-PERSONA');
    expect(userTexts(toGarden!).join('\n')).toContain('my fern is Bob');
    expect(userTexts(toGarden!).join('\n')).not.toContain('Dune');
    expect(
      h.rows('SELECT address, active_pack FROM conversation_routes ORDER BY active_pack'),
    ).toEqual([
      { address: `web:${garden.conversation}`, active_pack: 'alpha' },
      { address: `web:${booksId}`, active_pack: 'beta' },
    ]);
  });

  it('makes at most 30 new conversations a minute, and says so; the list keeps them all', async () => {
    const clock = new JumpClock();
    await start(clock);
    const c = await page();
    const count = () => h.rows<{ n: number }>('SELECT count(*) AS n FROM web_conversations')[0]!.n;
    const before = count();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await c.post('conversations', {})).status);
    expect(statuses).toEqual([...Array(30).fill(201), ...Array(10).fill(429)]);
    expect(count()).toBe(before + 30);
    const refused = await c.post('conversations', {});
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'You made 30 conversations in the last minute. Wait a moment before making another.',
    });

    // A rate, not a count: half a minute on, still none; a minute on, as many again.
    clock.advance(30_000);
    expect((await c.post('conversations', {})).status).toBe(429);
    clock.advance(30_000);
    for (let i = 0; i < 30; i++) expect((await c.post('conversations', {})).status).toBe(201);
    expect((await c.post('conversations', {})).status).toBe(429);
    expect(count()).toBe(before + 60);
    expect(await c.conversations()).toHaveLength(before + 60);
  });
});
