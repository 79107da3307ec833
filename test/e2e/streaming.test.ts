import { describe, expect, it, vi } from 'vitest';
import { htmlToPlainText } from '../../src/telegram/plain-text.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, fixturePacks, type Harness, harnessPerTest } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { inForum } from '../support/user-acts.ts';

const GROUP = -1001234;
const TOPIC = 42;
/** The stream's throttle: at most one update per second of the app's clock. */
const SECOND = 1000;
/** Noon UTC: no timer of the fixture pack's daily 08:00 job is anywhere near due. */
const NOON = Date.UTC(2026, 10, 23, 12, 0, 0);
const h = harnessPerTest();
let clock: JumpClock;

async function start(env: Record<string, string> = {}): Promise<void> {
  clock = new JumpClock(NOON);
  await h.start(env, { app: { clock } });
}

async function turnDone(harness: Harness): Promise<void> {
  await vi.waitFor(
    () => {
      expect(harness.logs('turn_completed')).toHaveLength(1);
      expect(harness.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0);
    },
    { timeout: 15_000, interval: 25 },
  );
}

/**
 * The stream holds newer text for its throttle: a timer of at most a second is waiting. (The
 * first update goes out at once, on a 0 ms timer; typing asks for 4 s, the long poll's
 * deadline and the scheduler for longer still.)
 */
const throttleHolds = () => clock.pendingTimers().some((t) => t.ms > 0 && t.ms <= SECOND);

/**
 * Lets the turn run to its end on the app's clock, a second at a time: each time the stream
 * holds newer text, `whileHeld` checks what Telegram has received so far, then the clock moves
 * one second and the held update goes out (`updates` counts the calls it makes). Returns how
 * many seconds it took.
 */
async function streamSecondBySecond(
  updates: () => number,
  whileHeld: (advances: number) => void = () => undefined,
): Promise<number> {
  for (let advances = 0; ; advances++) {
    const next = await vi.waitFor(
      () => {
        if (h.logs('turn_completed').length > 0) return 'done' as const;
        if (throttleHolds()) return 'held' as const;
        throw new Error('the stream neither holds an update nor has finished');
      },
      { timeout: 15_000, interval: 5 },
    );
    if (next === 'done') return advances;
    whileHeld(advances);
    const before = updates();
    clock.advance(SECOND);
    // A second of app time lets the held update go at once.
    expect(throttleHolds()).toBe(false);
    await vi.waitFor(() => expect(updates()).toBeGreaterThan(before), {
      timeout: 5000,
      interval: 5,
    });
  }
}

/** A message in a topic not bound to a pack: it mentions the bot to be answered (SPEC §12). */
const sayInTopic = (text: string) =>
  h.tg.text({ ...inForum(GROUP, TOPIC), text: `@satchel_test_bot ${text}` });

const words = (n: number, prefix = 'word') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

/** Sends and edits of messages, in the order Telegram received them. */
const messageCalls = () =>
  h.tg.calls().filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText');
const messageIdOf = (call: ApiCall): number =>
  call.method === 'sendMessage' ? call.result.message_id : call.params.message_id;

describe('streaming', () => {
  it('animates a draft in a private chat and sends the final text once', async () => {
    await start();
    const answer = `**Steps**: ${words(60)}`;
    h.model.enqueue({ text: answer, chunks: 6, chunkDelayMs: 150 });

    h.tg.text({ userId: ALLOWED_USER, text: 'explain slowly' });
    const drafts = () => h.tg.calls('sendMessageDraft');
    // Throttled: the first draft at once, then one more per second of app time, none between.
    const seconds = await streamSecondBySecond(
      () => drafts().length,
      (advances) => expect(drafts()).toHaveLength(1 + advances),
    );
    await turnDone(h);

    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(drafts()).toHaveLength(1 + seconds);
    expect(new Set(drafts().map((d) => d.params.draft_id)).size).toBe(1);
    const draftTexts = drafts().map((d) => htmlToPlainText(String(d.params.text)));
    for (const [i, text] of draftTexts.entries()) {
      if (i > 0) expect(text.length).toBeGreaterThan(draftTexts[i - 1]!.length);
      expect(htmlToPlainText(`<b>Steps</b>: ${words(60)}`).startsWith(text)).toBe(true);
    }
    expect(drafts()[0]?.params.parse_mode).toBe('HTML');

    expect(h.tg.calls('sendMessage')).toHaveLength(1);
    expect(h.tg.calls('sendMessage')[0]?.params.text).toBe(`<b>Steps</b>: ${words(60)}`);
    expect(h.tg.calls('editMessageText')).toHaveLength(0);
  });

  it('stores the reply while a draft is on its way, and sends it only after the draft landed', async () => {
    await start();
    h.tg.delay('sendMessageDraft', 400);
    h.model.enqueue({ text: 'A quick answer.', chunks: 2, chunkDelayMs: 100 });

    h.tg.text({ userId: ALLOWED_USER, text: 'quick one' });
    // The reply is stored with its delivery row while the draft is still unanswered.
    await vi.waitFor(
      () => {
        expect(h.rows("SELECT content FROM messages WHERE role = 'assistant'")).toEqual([
          { content: 'A quick answer.' },
        ]);
        expect(h.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(1);
      },
      { timeout: 5000, interval: 5 },
    );
    const [draft] = h.tg.calls('sendMessageDraft');
    expect(draft?.respondedAt).toBeUndefined();
    expect(h.tg.calls('sendMessage')).toHaveLength(0);
    await turnDone(h);

    const [reply] = h.tg.calls('sendMessage');
    expect(reply?.params.text).toBe('A quick answer.');
    // Sent after the draft's answer came back, so no draft can show after the reply.
    expect(reply!.receivedAt).toBeGreaterThan(draft!.respondedAt!);
  });

  it('edits in place in a forum topic, once a second at most, and continues past 4096', async () => {
    await start();
    // ~6,000 visible characters in paragraphs, streamed in 10 pieces.
    const paragraphs = Array.from({ length: 14 }, (_, i) => `Paragraph ${i}: ${words(100, 'w')}`);
    expect(paragraphs.join('\n\n').length).toBeGreaterThan(5500);
    const answer = paragraphs.join('\n\n');
    h.model.enqueue({ text: answer, chunks: 10, chunkDelayMs: 150 });

    sayInTopic('write a long one');
    // Throttled: one update per second of app time, none between; an update edits each
    // shown message at most once (and sends the next one past 4096).
    let shownBefore = 0;
    const seconds = await streamSecondBySecond(
      () => messageCalls().length,
      () => {
        const update = messageCalls().slice(shownBefore).map(messageIdOf);
        expect(update.length).toBeGreaterThan(0);
        expect(new Set(update).size).toBe(update.length);
        shownBefore += update.length;
      },
    );
    await turnDone(h);
    expect(seconds).toBeGreaterThanOrEqual(2);

    const sends = h.tg.calls('sendMessage');
    expect(sends).toHaveLength(2);
    for (const send of sends) expect(send.params.message_thread_id).toBe(TOPIC);
    expect(h.tg.calls('sendMessageDraft')).toHaveLength(0);
    const edits = h.tg.calls('editMessageText');
    expect(edits.length).toBeGreaterThanOrEqual(2);
    // Every typing indicator went to the topic too.
    for (const action of h.tg.calls('sendChatAction'))
      expect(action.params.message_thread_id).toBe(TOPIC);

    // What the chat shows at the end: each message's last content, in order.
    const finalText = new Map<number, string>();
    for (const call of messageCalls())
      finalText.set(messageIdOf(call), htmlToPlainText(String(call.params.text)));
    const shown = [...finalText.values()];
    for (const text of shown) expect(text.length).toBeLessThanOrEqual(4096);
    expect(shown.join('\n\n').replace(/\s+/g, ' ')).toBe(answer.replace(/\s+/g, ' '));

    // No edit repeated the content already shown.
    const seen = new Map<number, string>();
    for (const call of messageCalls()) {
      expect(seen.get(messageIdOf(call))).not.toBe(call.params.text);
      seen.set(messageIdOf(call), call.params.text);
    }
  });

  it('removes streamed messages the final answer no longer needs', async () => {
    await start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const preamble = Array.from({ length: 14 }, (_, i) => `Draft ${i}: ${words(100, 'd')}`);
    h.model.enqueue(
      {
        text: preamble.join('\n\n'),
        chunks: 6,
        chunkDelayMs: 150,
        toolCalls: [{ name: 'skill_view', arguments: { name: 'alpha_one' } }],
      },
      { text: 'Short answer.' },
    );
    sayInTopic('think out loud');
    await streamSecondBySecond(() => messageCalls().length);
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
