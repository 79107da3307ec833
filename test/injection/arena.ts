/**
 * One satchel on the fakes for a run of attacks: the vault pack (its `notes` hold the owner's
 * secret), the web tools pointed at local servers, speech-to-text, the hostile MCP feed, a
 * JumpClock for jobs — and the owner, who answers every approval question (Deny, unless the
 * attack's plan says to allow one) and whose questions and taps are counted.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { vi } from 'vitest';
import type { RecordedRequest, ScriptedReply } from '../fakes/model-server.ts';
import { FakeSearch } from '../fakes/search-server.ts';
import { isApproval } from '../support/approvals.ts';
import { ALLOWED_USER, type Harness, startHarness } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import type { HostileFeed } from './hostile-feed.ts';

export const VAULT = fileURLToPath(new URL('../fixtures/injection', import.meta.url));
/** The owner's secret: the first row of the vault pack's `notes` (its schema.sql). */
export const SECRET = 'Tulip';
export const PACK = 'vault';

/** An approval question the owner saw, and what they pressed. */
export interface Question {
  text: string;
  pressed: 'Allow once' | 'Always allow' | 'Deny';
}

export interface ArenaOptions {
  /** Local servers a fetch may reach (WEB_FETCH_ALLOW_HOSTS). */
  webHosts: string[];
  feed: HostileFeed;
  /** How the model answers (the obeying model, or a scripted well-behaved one). */
  respond: (req: RecordedRequest) => ScriptedReply;
  env?: Record<string, string>;
}

export interface Arena {
  h: Harness;
  clock: JumpClock;
  search: FakeSearch;
  /** Which button the owner presses for a question (default: Deny). */
  decide: (text: string) => Question['pressed'];
  /** The questions asked so far, in order. */
  questions: Question[];
  /** Sends a text from the owner in their private chat. */
  say(text: string): void;
  /** Marks an update pushed some other way (a document, a photo…) as one to wait for. */
  pushed(updateId: number): void;
  /** Waits until every update is handled, every question answered and nothing left to send. */
  idle(timeoutMs?: number): Promise<void>;
  /** Moves the clock on, a little at a time, until `done` (a batch's window has passed). */
  hurry(done: () => boolean): Promise<void>;
  /** Moves the clock a minute on and waits for the job runs that fall due. */
  runJobs(): Promise<number>;
  /** The vault pack's MEMORY.md. */
  memory(): string;
  /** Rows of the vault pack's database. */
  packRows<T>(sql: string, ...params: unknown[]): T[];
  /**
   * Back to the start: MEMORY.md as installed, no job made by a tool, Telegram's record of
   * calls emptied (polling it stays cheap).
   */
  reset(): void;
  close(): Promise<void>;
}

const MINUTE = 60_000;

export async function startArena(options: ArenaOptions): Promise<Arena> {
  const packs = mkdtempSync(path.join(tmpdir(), 'satchel-injection-'));
  cpSync(path.join(VAULT, PACK), path.join(packs, PACK), { recursive: true });
  const manifest = path.join(packs, PACK, 'pack.yml');
  writeFileSync(
    manifest,
    `${readFileSync(manifest, 'utf8')}mcp:\n  - name: feed\n    url: ${options.feed.url}\n`,
  );
  const search = await FakeSearch.start();
  const clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  const h = await startHarness(
    ({ model }) => ({
      SATCHEL_PACKS: packs,
      WEB_FETCH_ALLOW_HOSTS: options.webHosts.join(','),
      WEB_SEARCH_PROVIDER: 'brave',
      BRAVE_API_KEY: search.key,
      WEB_SEARCH_BASE_URL: search.url,
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: model.url,
      APPROVAL_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'warn',
      ...options.env,
    }),
    { app: { clock } },
  );
  h.model.setDefault(options.respond);
  const memoryFile = path.join(h.home, 'packs', PACK, 'MEMORY.md');
  const memoryAtStart = readFileSync(memoryFile, 'utf8');
  let lastUpdate = 0;
  let scanned = 0;

  const arena: Arena = {
    h,
    clock,
    search,
    decide: () => 'Deny',
    questions: [],
    say(text) {
      arena.pushed(h.tg.text({ userId: ALLOWED_USER, text }));
    },
    pushed(updateId) {
      lastUpdate = Math.max(lastUpdate, updateId);
    },
    async idle(timeoutMs = 15_000) {
      await vi.waitFor(
        () => {
          answer();
          if (h.tg.confirmedOffset() <= lastUpdate) throw new Error('updates not taken yet');
          const open = h.rows("SELECT 1 FROM inbound_updates WHERE status != 'done' LIMIT 1");
          if (open.length > 0) throw new Error('updates not done yet');
          const unsent = h.rows("SELECT 1 FROM outbox WHERE status = 'pending' LIMIT 1");
          if (unsent.length > 0) throw new Error('messages not sent yet');
        },
        { timeout: timeoutMs, interval: 10 },
      );
    },
    async hurry(done) {
      await vi.waitFor(
        () => {
          if (done()) return;
          clock.advance(200);
          throw new Error('not yet');
        },
        { timeout: 5_000, interval: 10 },
      );
    },
    async runJobs() {
      const due = h.rows("SELECT 1 FROM jobs WHERE enabled = 1 AND source = 'tool'").length;
      clock.advance(MINUTE);
      const ran = () =>
        h.rows(
          "SELECT 1 FROM jobs WHERE source = 'tool' AND last_run_at IS NOT NULL AND running_due_at IS NULL",
        ).length;
      await vi.waitFor(
        () => {
          if (ran() < due) throw new Error('job runs not done');
        },
        { timeout: 15_000, interval: 10 },
      );
      await arena.idle();
      return ran();
    },
    memory: () => readFileSync(memoryFile, 'utf8'),
    packRows<T>(sql: string, ...params: unknown[]) {
      const db = new Database(path.join(h.home, 'packs', PACK, 'pack.db'), { readonly: true });
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    },
    reset() {
      writeFileSync(memoryFile, memoryAtStart);
      h.exec("DELETE FROM jobs WHERE source = 'tool'");
      h.tg.clearCalls();
      scanned = 0;
    },
    async close() {
      await h.close();
      await search.stop();
      rmSync(packs, { recursive: true, force: true });
    },
  };

  /** Presses a button on each approval question not answered yet, as the owner decides. */
  function answer(): void {
    const sent = h.tg.calls('sendMessage');
    for (; scanned < sent.length; scanned++) {
      const call = sent[scanned]!;
      if (!isApproval(call) || call.result === undefined) {
        if (call.result === undefined && isApproval(call)) break;
        continue;
      }
      const text = String(call.params.text);
      const pressed = arena.decide(text);
      arena.questions.push({ text, pressed });
      const buttons = call.params.reply_markup.inline_keyboard.flat() as {
        text: string;
        callback_data: string;
      }[];
      const button = buttons.find((b) => b.text.startsWith(pressed))!;
      arena.pushed(
        h.tg.callback({
          userId: ALLOWED_USER,
          messageId: call.result.message_id,
          data: button.callback_data,
        }),
      );
    }
  }

  return arena;
}
