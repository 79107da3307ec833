/**
 * Telegram goes away and comes back (SPEC §4): the poller backs off to at most 2 s, its first
 * poll after a failure is a short one, and the first call that succeeds flushes the outbox,
 * so a reply held back by an outage of any length goes out within 3 s of Telegram's return.
 * Time is the app's JumpClock: the outage's seconds pass as jumps, the HTTP in real time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALLOWED_USER, type Harness, startHarness } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

/** Noon UTC: no scheduler timer is anywhere near due. */
const NOON = Date.UTC(2026, 10, 23, 12, 0, 0);
/** What the app calls while a turn runs; an outage fails them all. */
const METHODS = [
  'getMe',
  'getUpdates',
  'sendMessage',
  'sendMessageDraft',
  'sendChatAction',
  'editMessageText',
  'deleteMessage',
  'setMyCommands',
];

/**
 * The outbox's waits in this test: its tries after a failed send (300 ms, 1.5 s: set apart
 * from the poller's 0.5, 1 and 2 s) and its default rounds while a chat stays stalled.
 */
const OUTBOX_RETRY_MS = [300, 1500];
const OUTBOX_WAITS = new Set([...OUTBOX_RETRY_MS, 5_000, 10_000, 20_000, 40_000, 60_000]);
/** A Telegram call of the poller has a deadline timer while it is in flight (short, long). */
const CALL_DEADLINES = new Set([15_000, 45_000]);

let h: Harness;
let clock: JumpClock;

afterEach(async () => {
  await h?.close();
});

async function start(): Promise<void> {
  clock = new JumpClock(NOON);
  h = await startHarness({}, { app: { clock, outbox: { retryDelaysMs: OUTBOX_RETRY_MS } } });
  // Connected, and the long poll after the first (short) one is held open.
  await vi.waitFor(() => expect(h.tg.pendingPolls()).toBe(1));
}

const telegramDown = () => {
  for (const method of METHODS) h.tg.failAlways(method, { status: 'drop' });
};

/** The poller's failures as it logged them, each with the wait before its next try. */
const pollerWaits = () =>
  [...h.logs('tg_unreachable'), ...h.logs('retry').filter((l) => l.of === 'telegram')].map((l) =>
    Number(l.retryInMs),
  );

/** The outbox's wait before its next try of the held reply. */
const outboxWait = () => clock.pendingTimers().find((t) => OUTBOX_WAITS.has(t.ms));

/**
 * The poller and the outbox both wait on the clock, none of their calls in flight: no
 * poller call holds a deadline timer, and the outbox waits out a retry or a round.
 */
async function bothWaiting(): Promise<void> {
  // Lets what the last jump's timers started begin (their calls, their deadline timers).
  await new Promise((resolve) => setImmediate(resolve));
  await vi.waitFor(
    () => {
      expect(clock.pendingTimers().filter((t) => CALL_DEADLINES.has(t.ms))).toEqual([]);
      expect(outboxWait()).toBeDefined();
    },
    { timeout: 10_000, interval: 5 },
  );
}

/**
 * A reply is on its way when Telegram goes down for `ms` of the app's time: the clock jumps
 * from one of the app's timers to the next, each time once the app has acted on the last.
 */
async function outageDuringReply(ms: number): Promise<void> {
  telegramDown();
  // The long poll already held open brings this message; every call after it fails.
  h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
  const end = clock.now() + ms;
  for (;;) {
    await bothWaiting();
    const next = clock.pendingTimers()[0];
    if (!next || next.at > end) break;
    clock.advance(next.at - clock.now());
  }
  clock.advance(Math.max(0, end - clock.now()));
}

describe('after a Telegram outage', () => {
  it.each([12, 75])(
    'a reply held back by a %i s outage goes out within 3 s of Telegram coming back',
    async (seconds) => {
      await start();
      await outageDuringReply(seconds * 1000);
      expect(h.tg.texts(ALLOWED_USER)).toEqual([]);
      expect(h.rows('SELECT status FROM outbox')).toEqual([{ status: 'pending' }]);
      // The outbox's own next try is more than 3 s away: only being woken brings it in time.
      const ownTry = outboxWait()!.at;
      const back = clock.now();
      expect(ownTry - back).toBeGreaterThan(3000);

      h.tg.clearFaults();
      clock.advance(3000);
      await vi.waitFor(
        () => expect(h.rows('SELECT status FROM outbox')).toEqual([{ status: 'sent' }]),
        { timeout: 10_000, interval: 10 },
      );
      // Sent on the app's clock before the outbox's own try was due: the wake sent it, not
      // the end of its wait (real time also moves the clock, so the deadline alone would not).
      const { sentAt } = h.rows<{ sentAt: number }>('SELECT sent_at AS sentAt FROM outbox')[0]!;
      expect(sentAt).toBeLessThan(ownTry);
      expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
      expect(h.logs('tg_reachable')).toHaveLength(1);
      expect(h.logs('outbox_retry_now')).toMatchObject([{ chats: 1 }]);
    },
  );

  it('polls at most 2 s apart while Telegram is down, short after a failure, long once it answers', async () => {
    await start();
    await outageDuringReply(20_000);
    expect(pollerWaits().slice(0, 4)).toEqual([500, 1000, 2000, 2000]);
    expect(Math.max(...pollerWaits())).toBe(2000);

    h.tg.clearFaults();
    clock.advance(2000);
    // The short poll that finds Telegram back returns at once; the next one is long again.
    await vi.waitFor(() => expect(h.tg.pendingPolls()).toBe(1), { timeout: 5000 });
    const polls = h.tg.calls('getUpdates');
    const timeouts = polls.map((c) => Number(c.params.timeout));
    // At start: a short poll (start-up knows at once that polling works), then a long one.
    expect(timeouts.slice(0, 2)).toEqual([0, 30]);
    // The first poll of the outage was long (the one before it had succeeded); every retry
    // after a failure is short, the first to succeed too; then long polls resume.
    const firstFailure = polls.findIndex((c) => c.failed);
    expect(timeouts[firstFailure]).toBe(30);
    expect(timeouts.slice(firstFailure + 1, -1).every((t) => t === 0)).toBe(true);
    expect([polls.at(-2)?.failed, timeouts.at(-2)]).toEqual([undefined, 0]);
    expect(timeouts.at(-1)).toBe(30);
  });
});
