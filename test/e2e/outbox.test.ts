/**
 * The outbox end to end: real grammY `Api` → Telegram channel → outbox on a real SQLite store,
 * against the fake Bot API server. Assertions read what "Telegram" received (the fake's call
 * log, with arrival times) and the `outbox` rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Api } from 'grammy';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import { createRedactor } from '../../src/core/redact.ts';
import type { Address } from '../../src/core/types.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { plain as plainText } from '../../src/outbound/compose.ts';
import { createOutbox, type ChannelOutbox as Outbox } from '../../src/outbound/outbox.ts';
import { streamModeFor } from '../../src/outbound/stream.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createOutboxRepo } from '../../src/store/outbox-repo.ts';
import { createTelegramChannel } from '../../src/telegram/channel.ts';
import { telegramRenderer } from '../../src/telegram/render.ts';
import {
  createMemoryChannel,
  type MemoryChannel,
  OPTIONAL_METHODS,
} from '../fakes/memory-channel.ts';
import { type ApiCall, FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { JumpClock } from '../support/jump-clock.ts';

type LogLine = Record<string, unknown> & { event?: string; level: number };

interface OutboxDbRow {
  id: number;
  channel: string;
  chat_id: number;
  thread_id: number | null;
  status: string;
  attempts: number;
  message_id: number | null;
  last_error: string | null;
}

interface Rig {
  tg: FakeTelegram;
  home: string;
  store: CoreStore;
  outbox: Outbox;
  logs(event?: string): LogLine[];
  rows(): OutboxDbRow[];
  /** Closes the store and opens a new one, with a new outbox, on the same DB (a restart). */
  restart(): void;
}

interface RigOptions {
  retryDelaysMs?: readonly number[];
  stallDelaysMs?: readonly number[];
  /** Where the channel sends (default: the fake Telegram). */
  apiRoot?: string;
  globalRatePerSecond?: number;
  /** The outbox's clock (default: the system clock). */
  clock?: Clock;
}

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startRig(options: RigOptions = {}): Promise<Rig> {
  const tg = await FakeTelegram.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-outbox-'));
  const lines: LogLine[] = [];
  const log = createLogger({
    level: 'debug',
    secrets: [TEST_TOKEN],
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  });
  const channel = createTelegramChannel(
    new Api(TEST_TOKEN, { apiRoot: options.apiRoot ?? tg.apiRoot }),
  );
  const open = () => {
    const store = openCoreStore(home);
    const outbox = createOutbox({
      repo: createOutboxRepo(store.db),
      channel,
      clock: options.clock ?? systemClock,
      log,
      retryDelaysMs: options.retryDelaysMs ?? [20, 40],
      stallDelaysMs: options.stallDelaysMs ?? [50],
      redact: createRedactor([TEST_TOKEN]),
      ...(options.globalRatePerSecond === undefined
        ? {}
        : { globalRatePerSecond: options.globalRatePerSecond }),
    });
    return { store, outbox };
  };
  let current = open();
  const rig: Rig = {
    tg,
    home,
    get store() {
      return current.store;
    },
    get outbox() {
      return current.outbox;
    },
    logs: (event) => (event ? lines.filter((l) => l.event === event) : [...lines]),
    rows: () =>
      current.store.sqlite
        .prepare(
          'SELECT id, channel, chat_id, thread_id, status, attempts, message_id, last_error FROM outbox ORDER BY id',
        )
        .all() as OutboxDbRow[],
    restart() {
      current.store.close();
      current = open();
    },
  };
  cleanups.push(async () => {
    await current.outbox.idle();
    current.store.close();
    await tg.stop();
    rmSync(home, { recursive: true, force: true });
  });
  return rig;
}

/** A Telegram chat (topic) by its numeric ids, as the core names it (digits). */
const to = (chatId: number, threadId?: number): Address => ({
  platform: 'tg',
  chatId: String(chatId),
  ...(threadId === undefined ? {} : { threadId: String(threadId) }),
});

const md = (text: string) => ({ text, format: 'markdown' as const });
const plain = (text: string) => ({ text, format: 'plain' as const });

/** Visible text of Telegram HTML, computed independently of src: tags out, entities decoded. */
function visible(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

const chatOf = (call: ApiCall) => Number(call.params.chat_id);

/** The most calls that arrived within any window of `windowMs`. */
function maxInWindow(calls: readonly ApiCall[], windowMs: number): number {
  const times = calls.map((c) => c.at).sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

const CHAT_A = 1001;
const CHAT_B = 1002;

describe('the outbox, end to end against the fake Bot API', () => {
  describe('rendering', () => {
    const ANSWER = [
      '## Groceries',
      '',
      'Buy **oat milk** and run `npm test`, then read [the docs](https://example.com/docs?a=1&b=2).',
      '',
      '- first thing',
      '- second **bold** thing',
      '- third thing',
    ].join('\n');

    it('sends Markdown as one HTML message and marks the row sent with its message id', async () => {
      const rig = await startRig();
      await rig.outbox.send(to(CHAT_A), md(ANSWER));

      const calls = rig.tg.calls('sendMessage');
      expect(calls).toHaveLength(1);
      const call = calls[0]!;
      expect(call.failed).toBeUndefined();
      expect(call.params.parse_mode).toBe('HTML');
      expect(call.params.chat_id).toBe(CHAT_A);
      const text = String(call.params.text);
      expect(text).toContain('<b>Groceries</b>');
      expect(text).toContain('<b>oat milk</b>');
      expect(text).toContain('<code>npm test</code>');
      expect(text).toContain('<a href="https://example.com/docs?a=1&amp;b=2">the docs</a>');
      expect(text).toContain('• first thing\n• second <b>bold</b> thing\n• third thing');
      expect(text).not.toContain('**');
      expect(text).not.toContain('`');

      const rows = rig.rows();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        channel: 'tg',
        chat_id: String(CHAT_A),
        thread_id: null,
        status: 'sent',
        message_id: String(call.result.message_id),
      });
      expect(rig.logs('tg_send_failed')).toEqual([]);
    });

    it('re-sends as plain text, exactly once, when Telegram cannot parse the HTML', async () => {
      const rig = await startRig();
      rig.tg.failWhen('sendMessage', (p) => p.parse_mode === 'HTML', {
        status: 400,
        description:
          'Bad Request: can\'t parse entities: Unsupported start tag "b" at byte offset 3',
      });
      await rig.outbox.send(to(CHAT_A), md(ANSWER));

      const calls = rig.tg.calls('sendMessage');
      expect(calls).toHaveLength(2);
      expect(calls[0]).toMatchObject({ failed: true, params: { parse_mode: 'HTML' } });
      expect(calls[1]!.failed).toBeUndefined();
      expect(calls[1]!.params.parse_mode).toBeUndefined();

      const texts = rig.tg.texts(CHAT_A);
      expect(texts).toHaveLength(1);
      const text = texts[0]!;
      expect(text).not.toMatch(/<\/?[a-z]/i);
      expect(text).not.toContain('&amp;');
      expect(text).not.toContain('**');
      expect(text).not.toContain('`');
      expect(text).not.toContain('## ');
      expect(text).toContain('Groceries');
      expect(text).toContain('Buy oat milk and run npm test');
      expect(text).toContain('the docs (https://example.com/docs?a=1&b=2)');
      expect(text).toContain('• second bold thing');

      expect(rig.rows()[0]).toMatchObject({
        status: 'sent',
        message_id: String(calls[1]!.result.message_id),
      });
      expect(rig.logs('tg_parse_fallback')).toHaveLength(1);
    });
  });

  it('splits a 10,000-character answer with a 60-line code block into ordered parts', async () => {
    const rig = await startRig();
    // Prose paragraphs with emoji (2 UTF-16 units each) and bold; plain text otherwise, so the
    // expected visible text is the Markdown minus `**` and the fences. The layout (a blank line
    // inside the code block, paragraph sizes) keeps every part's raw HTML under 4096 too: the
    // fake rejects `text.length > 4096` on the HTML source, where Telegram counts the text
    // after entity parsing, so parts filled close to 4096 visible units would be refused.
    const sentence = (p: number, s: number) =>
      `Paragraph ${p} sentence ${s}: the quick brown fox 🦊 jumps over the **lazy** dog 🐶 again. `;
    const paragraph = (p: number, size: number) => {
      let text = '';
      for (let s = 1; text.length < size; s++) text += sentence(p, s);
      return text.trim();
    };
    const before = [1, 2, 3, 4, 5].map((p) => paragraph(p, 500));
    const after = [paragraph(6, 1900), paragraph(7, 1250)];
    const codeLines: string[] = [];
    for (let i = 1; i <= 60; i++) {
      const n = String(i).padStart(2, '0');
      codeLines.push(`  const step${n} = input[${n}] < limit && ready; // 🚀 step ${n} of 60 done`);
      if (i === 25) codeLines.push('');
    }
    const code = ['```ts', ...codeLines, '```'].join('\n');
    const markdown = [...before, code, ...after].join('\n\n');
    expect(markdown.length).toBeGreaterThanOrEqual(10_000);
    expect(markdown.length).toBeLessThan(10_500);
    const expected = [...before, codeLines.join('\n'), ...after].join('\n\n').replace(/\*\*/g, '');

    await rig.outbox.send(to(CHAT_A), md(markdown));

    const calls = rig.tg.calls('sendMessage');
    expect(calls.every((c) => !c.failed)).toBe(true);
    const parts = calls.map((c) => String(c.params.text));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(visible(part).length).toBeLessThanOrEqual(4096);
      expect(part.match(/<pre>/g)?.length ?? 0).toBe(part.match(/<\/pre>/g)?.length ?? 0);
      expect(part.match(/<code/g)?.length ?? 0).toBe(part.match(/<\/code>/g)?.length ?? 0);
      expect(part.match(/<b>/g)?.length ?? 0).toBe(part.match(/<\/b>/g)?.length ?? 0);
    }
    // The code block is closed at the end of one part and reopened, same tag, in the next.
    const opener = '<pre><code class="language-ts">';
    const cut = parts.findIndex(
      (part, i) => part.endsWith('</code></pre>') && parts[i + 1]?.startsWith(opener) === true,
    );
    expect(cut).toBeGreaterThanOrEqual(0);
    expect(visible(parts[cut]!)).toContain('step01');
    expect(visible(parts[cut + 1]!)).toContain('step60');
    expect(visible(parts[cut + 1]!)).not.toContain('step01');

    // Nothing lost, nothing repeated, in order.
    expect(squash(parts.map(visible).join('\n'))).toBe(squash(expected));
    expect(parts.map(visible).join('').replace(/\s+/g, '')).toBe(expected.replace(/\s+/g, ''));

    const rows = rig.rows();
    expect(rows).toHaveLength(parts.length);
    expect(rows.map((r) => r.status)).toEqual(parts.map(() => 'sent'));
    expect(rows.map((r) => r.message_id)).toEqual(calls.map((c) => String(c.result.message_id)));
  });

  it('waits out a 429 in the refused chat only, delivering everything once and in order', async () => {
    const clock = new JumpClock();
    const rig = await startRig({ clock });
    rig.tg.failWhen('sendMessage', (p) => p.chat_id === CHAT_A, { status: 429, retryAfter: 2 });

    const aTexts = ['a1', 'a2', 'a3'];
    const bTexts = ['b1', 'b2', 'b3'];
    const sends = Promise.all([
      ...aTexts.map((t) => rig.outbox.send(to(CHAT_A), plain(t))),
      ...bTexts.map((t) => rig.outbox.send(to(CHAT_B), plain(t))),
    ]);
    const aCalls = () => rig.tg.calls('sendMessage').filter((c) => chatOf(c) === CHAT_A);

    // Chat A waits out its 2 s on the clock; chat B is not held up meanwhile.
    await vi.waitFor(
      () => {
        expect(rig.tg.texts(CHAT_B)).toEqual(bTexts);
        expect(clock.pendingTimers()).toHaveLength(1);
      },
      { interval: 10 },
    );
    expect(aCalls()).toHaveLength(1);
    // A second later it still waits; once the 2 s Telegram asked for have passed, it goes on.
    clock.advance(1000);
    expect(clock.pendingTimers()).toHaveLength(1);
    clock.advance(1000);
    expect(clock.pendingTimers()).toHaveLength(0);
    await sends;

    expect(rig.tg.texts(CHAT_A)).toEqual(aTexts);
    expect(rig.tg.texts(CHAT_B)).toEqual(bTexts);
    expect(aCalls()).toHaveLength(4);
    const [refused, retried] = aCalls();
    expect(refused).toMatchObject({ failed: true, params: { text: 'a1' } });
    expect(retried!.params.text).toBe('a1');

    expect(rig.logs('tg_flood_wait')).toHaveLength(1);
    expect(rig.rows().map((r) => r.status)).toEqual(Array(6).fill('sent'));
  });

  describe('a burst of 50 messages to one chat and 50 over five others, dispatched at once', () => {
    const others = [CHAT_B, 1003, 1004, 1005, 1006];
    const expected = new Map<number, string[]>();
    let calls: ApiCall[] = [];
    let texts = new Map<number, string[]>();
    let statuses: string[] = [];
    let elapsed = 0;

    beforeAll(async () => {
      const rig = await startRig();
      const ids: number[] = [];
      const write = (chatId: number, text: string) => {
        ids.push(...rig.outbox.write(to(chatId), plain(text)));
        expected.set(chatId, [...(expected.get(chatId) ?? []), text]);
      };
      for (let i = 0; i < 50; i++) {
        write(CHAT_A, `A${i}`);
        write(others[i % others.length]!, `other${i}`);
      }
      const started = Date.now();
      await rig.outbox.dispatch(ids);
      elapsed = Date.now() - started;
      calls = rig.tg.calls('sendMessage');
      texts = new Map([...expected.keys()].map((chatId) => [chatId, rig.tg.texts(chatId)]));
      statuses = rig.rows().map((r) => r.status);
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    }, 30_000);

    it('delivers every message once, each chat in order, without stalling', () => {
      expect(calls).toHaveLength(100);
      expect(calls.every((c) => !c.failed)).toBe(true);
      for (const [chatId, sent] of expected) expect(texts.get(chatId)).toEqual(sent);
      expect(statuses).toEqual(Array(100).fill('sent'));
      // 100 calls at 25/s take about 3-4 s; far longer means the limiter or a chat queue stalls.
      expect(elapsed).toBeGreaterThan(2900);
      expect(elapsed).toBeLessThan(8000);
    });

    // Counted as Telegram sees them (arrival times): a call holds its slot until it ended.
    it('keeps every 1000 ms window at 25 calls or fewer (25/s limiter)', () => {
      expect(calls).toHaveLength(100);
      expect(maxInWindow(calls, 1000)).toBeLessThanOrEqual(25);
    });
  });

  describe('server errors', () => {
    it('retries a 500 and delivers on the third try, once', async () => {
      const clock = new JumpClock();
      const rig = await startRig({ clock, retryDelaysMs: [2000, 4000] });
      rig.tg.fail('sendMessage', { status: 500 }, 2);
      const sent = rig.outbox.send(to(CHAT_A), plain('third time lucky'));
      const calls = () => rig.tg.calls('sendMessage');

      // Each retry waits out its backoff on the clock: none before it, the next try after it.
      await vi.waitFor(() => expect(clock.pendingTimers()).toMatchObject([{ ms: 2000 }]), {
        interval: 10,
      });
      expect(calls()).toHaveLength(1);
      clock.advance(2000);
      await vi.waitFor(() => expect(clock.pendingTimers()).toMatchObject([{ ms: 4000 }]), {
        interval: 10,
      });
      expect(calls()).toHaveLength(2);
      clock.advance(4000);
      expect(await sent).toBe(true);

      expect(calls().map((c) => Boolean(c.failed))).toEqual([true, true, false]);
      expect(rig.tg.texts(CHAT_A)).toEqual(['third time lucky']);
      expect(rig.logs('tg_send_retry')).toHaveLength(2);
      expect(rig.rows()[0]).toMatchObject({
        status: 'sent',
        message_id: String(calls()[2]!.result.message_id),
      });
    });

    it('keeps a row that fails three tries at the head of its chat and delivers it, then the later ones, without a restart', async () => {
      const rig = await startRig({ stallDelaysMs: [50] });
      rig.tg.failWhen('sendMessage', (p) => p.chat_id === CHAT_A, { status: 502 }, Infinity);

      const [doomedSent, bSent] = await Promise.all([
        rig.outbox.send(to(CHAT_A), plain('first')),
        rig.outbox.send(to(CHAT_B), plain('meanwhile in B')),
      ]);
      // The caller hears "not sent yet"; other chats are not held up.
      expect([doomedSent, bSent]).toEqual([false, true]);
      const aCalls = rig.tg.calls('sendMessage').filter((c) => chatOf(c) === CHAT_A);
      expect(aCalls.length).toBeGreaterThanOrEqual(3);
      expect(aCalls.every((c) => c.failed)).toBe(true);
      expect(rig.tg.texts(CHAT_B)).toEqual(['meanwhile in B']);

      const failed = rig.logs('tg_send_failed');
      expect(failed).toHaveLength(1);
      const [first] = rig.rows();
      expect(failed[0]).toMatchObject({
        chatId: String(CHAT_A),
        outboxId: first!.id,
        final: false,
      });
      expect(JSON.stringify(failed[0])).not.toContain(TEST_TOKEN);
      expect(first).toMatchObject({ status: 'pending', message_id: null });
      expect(first!.last_error).toMatch(/Bad Gateway/);

      // A later message of the same chat does not overtake the held one.
      expect(await rig.outbox.send(to(CHAT_A), plain('second'))).toBe(false);
      expect(rig.tg.texts(CHAT_A)).toEqual([]);

      rig.tg.clearFaults();
      await vi.waitFor(() => expect(rig.tg.texts(CHAT_A)).toEqual(['first', 'second']), {
        timeout: 5000,
        interval: 20,
      });
      await rig.outbox.idle();
      expect(rig.rows().map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
      expect(rig.logs('tg_send_recovered')).toHaveLength(1);
      // Still only one failure line for the whole outage, not one per round.
      expect(rig.logs('tg_send_failed')).toHaveLength(1);
    });

    it('sends stalled chats at once when the channel answers again (retryNow), not at the end of their wait', async () => {
      const clock = new JumpClock();
      const rig = await startRig({ clock, retryDelaysMs: [], stallDelaysMs: [60_000] });
      rig.tg.failAlways('sendMessage', { status: 502 });
      const sends = [CHAT_A, CHAT_B].map((chat) => rig.outbox.send(to(chat), plain(`to ${chat}`)));
      // Both chats are held back: their callers hear "not yet", each waits out its round.
      expect(await Promise.all(sends)).toEqual([false, false]);
      expect(clock.pendingTimers().filter((t) => t.ms === 60_000)).toHaveLength(2);

      rig.tg.clearFaults();
      rig.outbox.retryNow();
      await vi.waitFor(() => expect(rig.rows().map((r) => r.status)).toEqual(['sent', 'sent']), {
        interval: 10,
      });
      expect(rig.tg.texts(CHAT_A)).toEqual([`to ${CHAT_A}`]);
      expect(rig.tg.texts(CHAT_B)).toEqual([`to ${CHAT_B}`]);
      expect(clock.pendingTimers().filter((t) => t.ms === 60_000)).toEqual([]);
      expect(rig.logs('outbox_retry_now')).toMatchObject([{ chats: 2 }]);
    });

    it('a stalled chat that gets through takes the other stalled chats with it', async () => {
      const clock = new JumpClock();
      const rig = await startRig({ clock, retryDelaysMs: [], stallDelaysMs: [10_000] });
      rig.tg.failAlways('sendMessage', { status: 502 });
      expect(await rig.outbox.send(to(CHAT_A), plain('a'))).toBe(false);
      clock.advance(5_000);
      // B's wait ends 5 s after A's.
      expect(await rig.outbox.send(to(CHAT_B), plain('b'))).toBe(false);

      rig.tg.clearFaults();
      clock.advance(5_000);
      await vi.waitFor(() => expect(rig.rows().map((r) => r.status)).toEqual(['sent', 'sent']), {
        interval: 10,
      });
      expect(rig.tg.texts(CHAT_B)).toEqual(['b']);
      expect(rig.logs('tg_send_recovered').map((l) => l.chatId)).toEqual([
        String(CHAT_A),
        String(CHAT_B),
      ]);
    });

    it('gives up on a file that cannot be read at once, and goes on with the chat', async () => {
      const rig = await startRig();
      const missing = path.join(rig.home, 'files', 'gone.png');
      const ids = [
        ...rig.outbox.writePayload(to(CHAT_A), { kind: 'photo', source: { path: missing } }).ids,
        ...rig.outbox.writePayload(to(CHAT_A), { kind: 'document', source: { path: rig.home } })
          .ids,
        ...rig.outbox.write(to(CHAT_A), plain('after the files')),
      ];
      expect(await rig.outbox.dispatch(ids)).toBe(false);

      expect(rig.tg.calls('sendPhoto')).toEqual([]);
      expect(rig.tg.calls('sendDocument')).toEqual([]);
      expect(rig.tg.texts(CHAT_A)).toEqual(['after the files']);
      const rows = rig.rows();
      expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'sent']);
      expect(rows[0]!.last_error).toMatch(/cannot read the file "gone.png" \(ENOENT\)/);
      expect(rows[1]!.last_error).toMatch(/is not a regular file/);
      expect(rig.logs('tg_send_retry')).toEqual([]);
    });

    it('stores no bot token in last_error when Telegram cannot be reached', async () => {
      const rig = await startRig({ apiRoot: 'http://127.0.0.1:9' });
      const ids = rig.outbox.write(to(CHAT_A), plain('into the void'));
      expect(await rig.outbox.dispatch(ids)).toBe(false);
      const [row] = rig.rows();
      expect(row!.status).toBe('pending');
      expect(row!.last_error).toBeTruthy();
      expect(row!.last_error).not.toContain(TEST_TOKEN);
      expect(row!.last_error).not.toContain(TEST_TOKEN.split(':')[1]);
      rig.outbox.close();
    });
  });

  it('sends rows written before a restart once, in order, and never re-sends a sent one', async () => {
    const rig = await startRig();
    await rig.outbox.send(to(CHAT_A), plain('already sent'));
    rig.outbox.write(to(CHAT_A), plain('one'));
    rig.outbox.write(to(CHAT_B), plain('for B'));
    rig.outbox.write(to(CHAT_A), md('**two**'));
    rig.outbox.write(to(CHAT_A), plain('three'));
    expect(rig.tg.calls('sendMessage')).toHaveLength(1);

    rig.restart();
    expect(rig.rows().map((r) => r.status)).toEqual([
      'sent',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    await rig.outbox.resumeUnsent();

    expect(rig.tg.texts(CHAT_A)).toEqual(['already sent', 'one', '<b>two</b>', 'three']);
    expect(rig.tg.texts(CHAT_B)).toEqual(['for B']);
    expect(rig.tg.calls('sendMessage')).toHaveLength(5);
    expect(rig.rows().every((r) => r.status === 'sent' && r.message_id !== null)).toBe(true);

    // A second resume finds nothing to send.
    await rig.outbox.resumeUnsent();
    expect(rig.tg.calls('sendMessage')).toHaveLength(5);
  });

  it('delivers every reply, in order, never behind a chat action, while every chat action fails', async () => {
    const rig = await startRig();
    rig.tg.failAlways('sendChatAction', { status: 500 });
    const address = to(CHAT_A);
    // Alone, typing goes out (and fails harmlessly).
    await rig.outbox.chatAction(address, 'typing');
    await Promise.all([
      rig.outbox.chatAction(address, 'typing'),
      rig.outbox.send(address, plain('r1')),
      rig.outbox.chatAction(address, 'typing'),
      rig.outbox.send(address, md('r2 *em*')),
      rig.outbox.chatAction(address, 'typing'),
      rig.outbox.send(address, plain('r3')),
    ]);

    expect(rig.tg.texts(CHAT_A)).toEqual(['r1', 'r2 <i>em</i>', 'r3']);
    // Typing asked for while a reply is on its way would only arrive after it: it is skipped.
    const methods = rig.tg.calls().map((c) => c.method);
    expect(methods.filter((m) => m === 'sendChatAction')).toEqual(['sendChatAction']);
    expect(methods.indexOf('sendChatAction')).toBe(0);
    const skipped = rig.logs('tg_side_call_failed').filter((l) => l.what === 'sendChatAction');
    expect(skipped).toHaveLength(1);
    expect(rig.logs('tg_send_failed')).toEqual([]);
  });

  it('keeps an allowed reply ahead of a crowd of not-authorized replies', async () => {
    const rig = await startRig();
    const strangers = Array.from({ length: 150 }, (_, i) => 5000 + i);
    const crowd = strangers.map((chatId) =>
      rig.outbox.send(to(chatId), plain('not authorized'), { priority: 'stranger' }),
    );
    const owner = rig.outbox.send(to(CHAT_A), plain('for the owner'));
    expect(await owner).toBe(true);

    const calls = rig.tg.calls('sendMessage');
    const ownerAt = calls.findIndex((c) => chatOf(c) === CHAT_A);
    // Strangers have a budget of 5 calls a second; the owner's reply is never behind them.
    expect(ownerAt).toBeGreaterThanOrEqual(0);
    expect(ownerAt).toBeLessThanOrEqual(5);
    rig.outbox.close();
    await Promise.all(crowd);
    expect(maxInWindow(rig.tg.calls('sendMessage'), 1000)).toBeLessThanOrEqual(6);
  });

  it('sends into a forum topic with message_thread_id, and into General without one', async () => {
    const rig = await startRig();
    const FORUM = -1001234567890;
    await rig.outbox.chatAction(to(FORUM, 77), 'typing');
    await rig.outbox.send(to(FORUM, 77), plain('in the topic'));
    await rig.outbox.send(to(FORUM), plain('in General'));

    const [topic, general] = rig.tg.calls('sendMessage');
    expect(topic!.params).toMatchObject({
      chat_id: FORUM,
      text: 'in the topic',
      message_thread_id: 77,
    });
    expect(topic!.result.message_thread_id).toBe(77);
    expect(general!.params).toMatchObject({ chat_id: FORUM, text: 'in General' });
    expect(general!.params).not.toHaveProperty('message_thread_id');
    expect(rig.tg.calls('sendChatAction')[0]!.params).toMatchObject({ message_thread_id: 77 });
    expect(rig.rows().map((r) => [r.thread_id, r.status])).toEqual([
      ['77', 'sent'],
      [null, 'sent'],
    ]);
  });
});

/**
 * The outbox over the in-memory channel: it acts on ChannelError kinds alone, gives a channel
 * without an optional method its documented fallback, and keeps each channel's rows apart.
 */
describe('the outbox over other channels', () => {
  interface MemoryRig {
    outbox: Outbox;
    lines: LogLine[];
    rows(): OutboxDbRow[];
  }

  function memoryRig(channel: MemoryChannel, home = freshHome()): MemoryRig {
    const store = openCoreStore(home);
    const lines: LogLine[] = [];
    const outbox = createOutbox({
      repo: createOutboxRepo(store.db),
      channel,
      clock: systemClock,
      log: createLogger({
        level: 'debug',
        secrets: [],
        destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
      }),
      retryDelaysMs: [10, 20],
      stallDelaysMs: [50],
    });
    cleanups.push(async () => {
      outbox.close();
      await outbox.idle();
      store.close();
    });
    const rows = () =>
      store.sqlite
        .prepare('SELECT id, channel, chat_id, status, message_id FROM outbox ORDER BY id')
        .all() as OutboxDbRow[];
    return { outbox, lines, rows };
  }

  function freshHome(): string {
    const home = mkdtempSync(path.join(tmpdir(), 'satchel-outbox-mem-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    return home;
  }

  const mem = (chatId: number): Address => ({ platform: 'mem', chatId: String(chatId) });
  const partOf = (text: string) => telegramRenderer.text(plainText(text))[0]!;

  it('gives a channel without the optional methods their fallbacks', async () => {
    const channel = createMemoryChannel({ without: OPTIONAL_METHODS });
    const { outbox, rows } = memoryRig(channel);
    const to = mem(1);

    // No chat actions, drafts or edits: nothing is sent for them.
    await outbox.chatAction(to, 'typing');
    await outbox.draft(to, 7, partOf('thinking'));
    expect(await outbox.editLive(to, '1', partOf('more'))).toBe(false);
    expect(outbox.writePayload(to, { kind: 'action', action: 'typing' })).toEqual({
      ids: [],
      note: 'chat action "typing" skipped: not supported',
    });
    expect(channel.calls).toEqual([]);
    expect(streamModeFor(channel, 'private')).toBe('none');
    expect(streamModeFor(channel, 'supergroup')).toBe('none');

    // An edit comes as a new message; a delete leaves the message (the row is done).
    expect(await outbox.send(to, plain('first'))).toBe(true);
    const [first] = channel.messages(to);
    const ids = [
      outbox.writeEdit(to, first!.messageId, partOf('final')),
      outbox.writeDelete(to, first!.messageId),
    ];
    expect(await outbox.dispatch(ids)).toBe(true);
    expect(channel.transcript(to)).toEqual(['first', 'final']);
    expect(rows().map((r) => [r.channel, r.status])).toEqual([
      ['mem', 'sent'],
      ['mem', 'sent'],
      ['mem', 'sent'],
    ]);
  });

  it('streams by the methods a channel has', () => {
    const full = createMemoryChannel();
    expect(streamModeFor(full, 'private')).toBe('draft');
    expect(streamModeFor(full, 'supergroup')).toBe('edit');
    const noDrafts = createMemoryChannel({ without: ['sendDraft'] });
    expect(streamModeFor(noDrafts, 'private')).toBe('edit');
  });

  it('acts on the kinds: waits out rate_limited, retries transient, falls back on bad_markup, stops on refused', async () => {
    const channel = createMemoryChannel();
    const { outbox, lines, rows } = memoryRig(channel);
    const to = mem(2);

    channel.fail('rate_limited', { method: 'sendText', retryAfterMs: 50 });
    channel.fail('transient', { method: 'sendText' });
    expect(await outbox.send(to, plain('one'))).toBe(true);
    channel.fail('bad_markup', { method: 'sendText' });
    expect(await outbox.send(to, md('**two**'))).toBe(true);
    channel.fail('refused', { method: 'sendText' });
    expect(await outbox.send(to, plain('three'))).toBe(false);
    expect(await outbox.send(to, plain('four'))).toBe(true);

    expect(channel.transcript(to)).toEqual(['one', 'two', 'four']);
    expect(channel.calls.map((c) => c.failed ?? 'ok')).toEqual([
      'rate_limited',
      'transient',
      'ok',
      'bad_markup',
      'ok',
      'refused',
      'ok',
    ]);
    expect(rows().map((r) => r.status)).toEqual(['sent', 'sent', 'failed', 'sent']);
    // Each event is named after the channel it happened on (Telegram's: `tg_flood_wait`…).
    const events = lines.map((l) => l.event);
    expect(events.filter((e) => e === 'mem_flood_wait')).toHaveLength(1);
    expect(events.filter((e) => e === 'mem_send_retry')).toHaveLength(1);
    expect(events.filter((e) => e === 'mem_parse_fallback')).toHaveLength(1);
    expect(events.filter((e) => e === 'mem_send_failed')).toHaveLength(1);
    expect(events.some((e) => e?.startsWith('tg_'))).toBe(false);
  });

  it('sends an edit of a message that is gone as a new one, and counts a delete of it as done', async () => {
    const channel = createMemoryChannel();
    const { outbox, rows } = memoryRig(channel);
    const to = mem(3);
    await outbox.send(to, plain('shown'));
    const [shown] = channel.messages(to);
    await channel.deleteMessage!(to, shown!.messageId); // someone deleted it meanwhile

    const ids = [
      outbox.writeEdit(to, shown!.messageId, partOf('the answer')),
      outbox.writeDelete(to, shown!.messageId),
    ];
    expect(await outbox.dispatch(ids)).toBe(true);
    expect(channel.transcript(to)).toEqual(['the answer']);
    expect(rows().map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
  });

  it("resumes only its own channel's rows, and takes no address of another channel", async () => {
    const home = freshHome();
    const memChannel = createMemoryChannel();
    const tgChannel = createMemoryChannel({ platform: 'tg' });
    const memory = memoryRig(memChannel, home);
    const telegram = memoryRig(tgChannel, home);

    telegram.outbox.write(to(CHAT_A), plain('for tg'));
    memory.outbox.write(mem(CHAT_A), plain('for mem'));
    expect(() => memory.outbox.write(to(CHAT_A), plain('wrong channel'))).toThrow(/tg address/);

    await memory.outbox.resumeUnsent();
    expect(memChannel.transcript(mem(CHAT_A))).toEqual(['for mem']);
    expect(tgChannel.calls).toEqual([]);
    expect(memory.rows().map((r) => [r.channel, r.status])).toEqual([
      ['tg', 'pending'],
      ['mem', 'sent'],
    ]);
  });
});
