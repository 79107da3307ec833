/**
 * Seeds a SATCHEL_HOME with history, straight into SQLite: conversations bound to a pack,
 * their sessions and messages, and a ledger of paid calls spread over past days (today
 * last). The schema is the real one (openCoreStore applies the migrations first).
 */

import { openCoreStore } from '../../src/store/client.ts';
import type { Database } from '../../src/store/sqlite.ts';

const DAY_MS = 86_400_000;
const TEXT =
  'A message of about the length people write to an assistant: a question, a note about the ' +
  'day, or an answer with a few details in it.';

export interface SeedOptions {
  /** Conversations (private chats bound to `pack`, one open session each). */
  conversations: number;
  messages: number;
  /** Ledger rows; `todayRows` of them are today's, the rest spread over `days` before. */
  ledgerRows: number;
  todayRows?: number;
  days?: number;
  pack?: string;
  /** "Now" (ms): today's rows are stamped just before it, in its UTC day. */
  now?: number;
}

export function seedHome(home: string, options: SeedOptions): void {
  const store = openCoreStore(home);
  try {
    const now = options.now ?? Date.now();
    store.sqlite.transaction(() => seedConversations(store.sqlite, options, now))();
    seedLedger(store.sqlite, options, now);
  } finally {
    store.close();
  }
}

/** The open session id of seeded conversation `i`. */
export const seededSession = (i: number) => `seed-session-${i}`;

function seedConversations(db: Database, o: SeedOptions, now: number): void {
  const pack = o.pack ?? 'journal';
  const route = db.prepare(
    `INSERT INTO conversation_routes (address, platform, chat_id, thread_id, active_pack, session_id, updated_at)
     VALUES (?, 'tg', ?, NULL, ?, ?, ?)`,
  );
  const session = db.prepare(
    `INSERT INTO sessions (id, key, pack, address, kind, created_at) VALUES (?, ?, ?, ?, 'chat', ?)`,
  );
  const message = db.prepare(
    `INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < o.conversations; i++) {
    const chatId = 700_000 + i;
    const address = `tg:${chatId}`;
    route.run(address, chatId, pack, seededSession(i), now);
    session.run(seededSession(i), `${address}:${pack}`, pack, address, now - 30 * DAY_MS);
  }
  for (let m = 0; m < o.messages; m++) {
    const i = m % o.conversations;
    const role = Math.floor(m / o.conversations) % 2 === 0 ? 'user' : 'assistant';
    message.run(seededSession(i), `seed-turn-${Math.floor(m / 2)}`, role, TEXT, now - m * 1000);
  }
}

/** Inserts ledger rows in batches of 50,000 (one transaction each). */
function seedLedger(db: Database, o: SeedOptions, now: number): void {
  const days = o.days ?? 730;
  const today = Math.min(o.todayRows ?? 200, o.ledgerRows);
  const insert = db.prepare(
    `INSERT INTO usage_events (ts, day, kind, provider, model, pack, chat_id, session_id, turn_id,
       input_tokens, cached_input_tokens, output_tokens, cost_usd, price_known, latency_ms, ok)
     VALUES (?, ?, 'llm', 'openai', 'gpt-4.1-mini', ?, ?, ?, ?, 1800, 0, 120, 0.00091, 1, 900, 1)`,
  );
  const pack = o.pack ?? 'journal';
  const conversations = Math.max(1, o.conversations);
  const write = db.transaction((from: number, to: number) => {
    for (let r = from; r < to; r++) {
      const back = r < today ? 0 : 1 + ((r - today) % days);
      const ts = now - back * DAY_MS - (r % 1000);
      const i = r % conversations;
      const day = new Date(ts).toISOString().slice(0, 10);
      insert.run(ts, day, pack, 700_000 + i, seededSession(i), `seed-call-${r}`);
    }
  });
  for (let from = 0; from < o.ledgerRows; from += 50_000)
    write(from, Math.min(o.ledgerRows, from + 50_000));
}
