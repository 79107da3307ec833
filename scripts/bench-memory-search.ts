/**
 * memory_search benchmark (not a test): the FTS5 index over 1,000,000 stored messages.
 *
 *   npx tsx scripts/bench-memory-search.ts     (part of: npm run bench)
 *   BENCH_MESSAGES=100000 npx tsx scripts/bench-memory-search.ts
 *
 * The messages are spread over 2,000 conversations (two packs in 1,000 chats), one of them a
 * heavy chat of 100,000 messages; words follow a Zipf-like law over a 5,000-word vocabulary,
 * so common words match in most rows. Reports (a) a search's p50/p95 in the heavy chat and in
 * a typical one (common, rare and mixed queries); (b) storing one message (each in its own
 * transaction, as a turn stores it) and indexing it afterwards (store/search-index.ts), next
 * to what storing it with the index in the same commit cost (the trigger before migration 0021).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openCoreStore } from '../src/store/client.ts';
import { createMessageSearch } from '../src/store/message-search.ts';
import { indexPending } from '../src/store/search-index.ts';

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const HEAVY = Math.round(TOTAL / 10);
const CHATS = 1000;
const VOCABULARY = 5000;
const QUERIES = 300;
const INSERTS = 2000;

let seed = 42;
/** A small deterministic PRNG, so every run measures the same data. */
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const words = Array.from({ length: VOCABULARY }, (_, i) => `w${i.toString(36)}x`);
/** Zipf-like: word i with weight 1/(i+1). */
const word = () => words[Math.min(VOCABULARY - 1, Math.floor(VOCABULARY ** random()) - 1)]!;
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');

const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-fts-'));
const store = openCoreStore(home);
const { sqlite } = store;
const key = (chat: number, pack: string) => `tg:${chat}:${pack}`;

function seedMessages(): number {
  const started = performance.now();
  const session = sqlite.prepare(
    "INSERT INTO sessions (id, key, pack, address, created_at) VALUES (?, ?, ?, '{}', 0)",
  );
  const message = sqlite.prepare(
    "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES (?, 't', ?, ?, ?)",
  );
  sqlite.transaction(() => {
    for (let c = 0; c < CHATS; c++)
      for (const pack of ['journal', 'vocab']) session.run(`${pack}-${c}`, key(c, pack), pack);
  })();
  const perChat = Math.floor((TOTAL - HEAVY) / (CHATS * 2));
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const heavy = i < HEAVY;
      const c = heavy ? 0 : Math.floor((i - HEAVY) / perChat / 2) % CHATS;
      const pack = heavy || (i - HEAVY) % 2 === 0 ? 'journal' : 'vocab';
      message.run(`${pack}-${c}`, i % 2 ? 'assistant' : 'user', sentence(8 + (i % 24)), i);
    }
  });
  // Stored, then indexed in one pass, as the first search after them would.
  for (let i = 0; i < TOTAL; i += 50_000) batch(i, Math.min(TOTAL, i + 50_000));
  indexPending(sqlite);
  return performance.now() - started;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

function timeSearches(chat: number, kind: 'common' | 'rare' | 'mixed') {
  const search = createMessageSearch(sqlite);
  const times: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const common = words[q % 20]!;
    const rare = words[2000 + ((q * 37) % 3000)]!;
    const query =
      kind === 'common'
        ? `${common} ${words[(q + 7) % 20]}`
        : kind === 'rare'
          ? rare
          : `${common} ${rare}`;
    const started = performance.now();
    search.search({ pack: 'journal', key: key(chat, 'journal'), query, limit: 5 });
    times.push(performance.now() - started);
  }
  return times;
}

/** Storing one message in its own transaction, then (unless `sameCommit`) indexing it. */
function timeInserts(sameCommit: boolean): { stored: number[]; indexed: number[] } {
  const message = sqlite.prepare(
    "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('journal-1', 't', 'user', ?, 0)",
  );
  const stored: number[] = [];
  const indexed: number[] = [];
  for (let i = 0; i < INSERTS; i++) {
    const text = sentence(20);
    const started = performance.now();
    sqlite.transaction(() => {
      message.run(text);
      if (sameCommit) indexPending(sqlite);
    })();
    stored.push(performance.now() - started);
    const later = performance.now();
    indexPending(sqlite);
    indexed.push(performance.now() - later);
  }
  return { stored, indexed };
}

const seeded = seedMessages();
console.log(`seeded ${TOTAL.toLocaleString('en')} messages in ${(seeded / 1000).toFixed(1)} s`);
for (const [label, chat] of [
  [`heavy chat (${HEAVY.toLocaleString('en')} messages)`, 0],
  ['typical chat', 500],
] as const)
  for (const kind of ['common', 'rare', 'mixed'] as const) {
    const times = timeSearches(chat, kind);
    console.log(
      `memory_search, ${label}, ${kind} words: p50 ${fmt(percentile(times, 0.5))}, p95 ${fmt(percentile(times, 0.95))}`,
    );
  }
const together = timeInserts(true);
const later = timeInserts(false);
const p50p95 = (times: number[]) =>
  `p50 ${fmt(percentile(times, 0.5))} (p95 ${fmt(percentile(times, 0.95))})`;
console.log(
  `store one message: ${p50p95(later.stored)}, indexed after the turn ${p50p95(later.indexed)}; ` +
    `stored and indexed in one commit (before migration 0021) ${p50p95(together.stored)}`,
);
store.close();
rmSync(home, { recursive: true, force: true });
