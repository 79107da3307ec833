import { afterEach, describe, expect, it, vi } from 'vitest';
import { htmlToPlainText } from '../../src/outbound/plain-text.ts';
import { ALLOWED_USER, fixturePacks, type Harness, startHarness } from '../support/harness.ts';

const GROUP = -1001234;
const TOPIC = 42;
let h: Harness;

afterEach(async () => {
  await h?.close();
});

async function turnDone(harness: Harness): Promise<void> {
  await vi.waitFor(
    () => {
      expect(harness.logs('turn_completed')).toHaveLength(1);
      expect(harness.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0);
    },
    { timeout: 15_000, interval: 25 },
  );
}

const sayInTopic = (text: string) =>
  h.tg.text({
    userId: ALLOWED_USER,
    chatId: GROUP,
    chatType: 'supergroup',
    isForum: true,
    threadId: TOPIC,
    text,
  });

const words = (n: number, prefix = 'word') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('streaming', () => {
  it('animates a draft in a private chat and sends the final text once', async () => {
    h = await startHarness();
    const answer = `**Steps**: ${words(60)}`;
    h.model.enqueue({ text: answer, chunks: 6, chunkDelayMs: 350 });

    h.tg.text({ userId: ALLOWED_USER, text: 'explain slowly' });
    await turnDone(h);

    const drafts = h.tg.calls('sendMessageDraft');
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(drafts.map((d) => d.params.draft_id)).size).toBe(1);
    const draftTexts = drafts.map((d) => htmlToPlainText(String(d.params.text)));
    for (const [i, text] of draftTexts.entries()) {
      if (i > 0) expect(text.length).toBeGreaterThan(draftTexts[i - 1]!.length);
      expect(htmlToPlainText(`<b>Steps</b>: ${words(60)}`).startsWith(text)).toBe(true);
    }
    expect(drafts[0]?.params.parse_mode).toBe('HTML');
    // Throttled: at most one draft per second.
    for (let i = 1; i < drafts.length; i++)
      expect(drafts[i]!.at - drafts[i - 1]!.at).toBeGreaterThanOrEqual(950);

    expect(h.tg.calls('sendMessage')).toHaveLength(1);
    expect(h.tg.calls('sendMessage')[0]?.params.text).toBe(`<b>Steps</b>: ${words(60)}`);
    expect(h.tg.calls('editMessageText')).toHaveLength(0);
  });

  it('edits in place in a forum topic, once a second at most, and continues past 4096', async () => {
    h = await startHarness();
    // ~6,000 visible characters in paragraphs, streamed in 10 pieces.
    const paragraphs = Array.from({ length: 14 }, (_, i) => `Paragraph ${i}: ${words(100, 'w')}`);
    expect(paragraphs.join('\n\n').length).toBeGreaterThan(5500);
    const answer = paragraphs.join('\n\n');
    h.model.enqueue({ text: answer, chunks: 10, chunkDelayMs: 300 });

    sayInTopic('write a long one');
    await turnDone(h);

    const sends = h.tg.calls('sendMessage');
    expect(sends).toHaveLength(2);
    for (const send of sends) expect(send.params.message_thread_id).toBe(TOPIC);
    expect(h.tg.calls('sendMessageDraft')).toHaveLength(0);
    const edits = h.tg.calls('editMessageText');
    expect(edits.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < edits.length; i++)
      expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(950);
    // Every typing indicator went to the topic too.
    for (const action of h.tg.calls('sendChatAction'))
      expect(action.params.message_thread_id).toBe(TOPIC);

    // What the chat shows at the end: each message's last content, in order.
    const finalText = new Map<number, string>();
    for (const call of [...sends, ...edits].sort((a, b) => a.at - b.at)) {
      const id = call.method === 'sendMessage' ? call.result.message_id : call.params.message_id;
      finalText.set(id, htmlToPlainText(String(call.params.text)));
    }
    const shown = [...finalText.values()];
    for (const text of shown) expect(text.length).toBeLessThanOrEqual(4096);
    expect(shown.join('\n\n').replace(/\s+/g, ' ')).toBe(answer.replace(/\s+/g, ' '));

    // No edit repeated the content already shown.
    const seen = new Map<number, string>();
    for (const call of [...sends, ...edits].sort((a, b) => a.at - b.at)) {
      const id = call.method === 'sendMessage' ? call.result.message_id : call.params.message_id;
      expect(seen.get(id)).not.toBe(call.params.text);
      seen.set(id, call.params.text);
    }
  });

  it('removes streamed messages the final answer no longer needs', async () => {
    h = await startHarness({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const preamble = Array.from({ length: 14 }, (_, i) => `Draft ${i}: ${words(100, 'd')}`);
    h.model.enqueue(
      {
        text: preamble.join('\n\n'),
        chunks: 6,
        chunkDelayMs: 300,
        toolCalls: [{ name: 'skill_view', arguments: { name: 'alpha_one' } }],
      },
      { text: 'Short answer.' },
    );
    sayInTopic('think out loud');
    await turnDone(h);

    const sends = h.tg.calls('sendMessage');
    expect(sends).toHaveLength(2);
    const [first, second] = sends.map((c) => c.result.message_id);
    expect(h.tg.calls('deleteMessage').map((c) => c.params)).toEqual([
      { chat_id: GROUP, message_id: second },
    ]);
    const lastEdit = h.tg.calls('editMessageText').at(-1)!;
    expect(lastEdit.params).toMatchObject({ message_id: first, text: 'Short answer.' });
  });
});
