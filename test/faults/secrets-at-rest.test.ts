/**
 * A user pastes secrets into the chat. The conversation keeps what they wrote (the model
 * sees it, `messages` stores it), but the raw copy of the update in the durable inbox and
 * the log never hold it, so neither do backups of them. The log is checked where it does
 * carry the text: a tool whose error message quotes what the model passed it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userTexts } from '../fakes/model-server.ts';
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
    // It answers late, so the raw update is read while its turn runs (once done, the row
    // keeps no payload at all).
    h.model.enqueue(
      {
        delayMs: 1000,
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
