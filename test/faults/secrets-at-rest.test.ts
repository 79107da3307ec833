/**
 * A user pastes secrets into the chat. The conversation keeps what they wrote (the model
 * sees it, `messages` stores it), but the raw copy of the update in the durable inbox and
 * the log never hold it, so neither do backups of them. The log is checked where it does
 * carry the text: a tool whose error message quotes what the model passed it. In the web
 * chat, the line also names its conversation: every table but `messages` and its search
 * index is read, `web_conversations` among them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userTexts } from '../fakes/model-server.ts';
import { ChatClient, shownText } from '../support/chat-client.ts';
import {
  ALLOWED_USER,
  fixturePacks,
  type Harness,
  settled,
  startHarness,
} from '../support/harness.ts';

const PASTED = {
  botToken: `7012345678:AAH${'q'.repeat(32)}`,
  openai: 'sk-proj-AbCdEf0123456789_abcdefGHIJ',
  groq: 'gsk_0123456789abcdefghijABCDEFGHIJ',
  google: `AIzaSy${'a1B2c3D4e5'.repeat(4).slice(0, 33)}`,
  bearer: 'eyJhbGciOiJIUzI1NiJ9.payload.signature',
};
const TEXT =
  `set these up please:\nbot ${PASTED.botToken}\nopenai ${PASTED.openai}\n` +
  `groq ${PASTED.groq}\ngemini ${PASTED.google}\ncurl -H "Authorization: Bearer ${PASTED.bearer}"`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('secrets a user pastes', () => {
  it('stay in the conversation, and are redacted in the stored raw update and in the log', async () => {
    h = await startHarness({ SATCHEL_PACKS: fixturePacks(['beta']) });
    // The model puts each secret where the log carries it: a failing tool's error message.
    // It answers once the raw update has been read while its turn runs (once done, the row
    // keeps no payload at all).
    let release = () => {};
    const read = new Promise<void>((resolve) => (release = resolve));
    h.model.enqueue(
      {
        until: read,
        toolCalls: Object.entries(PASTED).map(([kind, secret]) => ({
          name: 'db_query',
          arguments: { sql: `SELECT * FROM "${kind === 'bearer' ? 'Bearer ' : ''}${secret}"` },
        })),
      },
      { text: 'Those are not tables.' },
    );
    h.tg.text({ userId: ALLOWED_USER, text: TEXT });
    await h.model.waitForRequest(1);
    const [raw] = h.rows<{ payload: string }>('SELECT payload FROM inbound_updates');
    const update = JSON.parse(raw!.payload) as { message: { text: string } };
    expect(update.message.text).toBe(
      'set these up please:\nbot [redacted]\nopenai [redacted]\ngroq [redacted]\n' +
        'gemini [redacted]\ncurl -H "Authorization: Bearer [redacted]"',
    );
    release();
    await settled(h, 1);

    expect(userTexts(h.model.chatRequests()[0]!).at(-1)).toBe(TEXT);
    const toolErrors = h.logs('tool_error');
    expect(toolErrors).toHaveLength(Object.keys(PASTED).length);
    for (const line of toolErrors)
      expect(JSON.stringify(line)).toMatch(/no such table: (Bearer )?\[redacted\]/);
    const said = h.rows<{ content: string }>("SELECT content FROM messages WHERE role = 'user'");
    expect(said.map((m) => m.content)).toEqual([TEXT]);
    expect(h.rows('SELECT payload FROM inbound_updates')).toEqual([{ payload: '' }]);
    const log = JSON.stringify(h.logs());
    for (const secret of Object.values(PASTED)) {
      expect(raw!.payload).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
});

/** Every table of the core database but the conversation itself: `messages` and its index. */
function tablesBesideMessages(harness: Harness): string[] {
  return harness
    .rows<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .map((t) => t.name)
    .filter((name) => name !== 'messages' && !name.startsWith('messages_search'));
}

describe('secrets pasted into the web chat', () => {
  it('stay in the conversation; its title, the list and every other table hold them redacted', async () => {
    const printed: string[] = [];
    h = await startHarness(
      { SATCHEL_PACKS: fixturePacks(['beta']) },
      { app: { announce: (line) => printed.push(line) } },
    );
    const url = printed.find((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;
    const chat = await ChatClient.open(url);
    try {
      await chat.connect();
      h.model.enqueue({ text: 'Noted.' });
      // The title the model writes after the first exchange repeats the key.
      h.model.enqueueTitle({ text: `Setting up ${PASTED.openai}` });
      // The first line starts with the key: it names the conversation until then.
      const line = `${PASTED.openai} is my key; ${TEXT}`;
      await chat.send(line);
      expect((await chat.waitForBot(1)).map(shownText)).toEqual(['Noted.']);
      expect(h.rows('SELECT status FROM edge_inbox')).toEqual([{ status: 'done' }]);

      // The model's title replaces the first line, stored redacted like it.
      await expect
        .poll(async () => (await chat.conversations())[0]!.title)
        .toBe('Setting up [redacted]');
      const [listed] = await chat.conversations();
      expect(h.rows('SELECT title FROM web_conversations')).toEqual([
        { title: 'Setting up [redacted]' },
      ]);
      // A title the owner types is kept redacted too.
      const renamed = await chat.post('rename', {
        conversation: listed!.id,
        title: `groq ${PASTED.groq}`,
      });
      expect(await renamed.json()).toMatchObject({ conversation: { title: 'groq [redacted]' } });
      expect(h.rows('SELECT title FROM web_conversations')).toEqual([{ title: 'groq [redacted]' }]);

      // The conversation keeps what was said; no other table holds any of it.
      expect(userTexts(h.model.chatRequests()[0]!).at(-1)).toBe(line);
      const said = h.rows<{ content: string }>("SELECT content FROM messages WHERE role = 'user'");
      expect(said.map((m) => m.content)).toEqual([line]);
      const tables = tablesBesideMessages(h);
      expect(tables).toContain('web_conversations');
      for (const table of tables) {
        const rows = JSON.stringify(h.rows(`SELECT * FROM "${table}"`));
        for (const secret of Object.values(PASTED)) expect(rows, table).not.toContain(secret);
      }
      const listedText = JSON.stringify(await chat.conversations());
      for (const secret of Object.values(PASTED)) expect(listedText).not.toContain(secret);
    } finally {
      chat.close();
    }
  });
});
