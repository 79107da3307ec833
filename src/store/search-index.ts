import type BetterSqlite3 from 'better-sqlite3';
import { afterQueuedTasks } from '../core/background.ts';
import type { Database } from './sqlite.ts';

/**
 * memory_search's index (FTS5, migrations 0007 and 0021) is written after the turn, not in
 * each message's own commit. A message's insert used to add its row to the index through a
 * trigger: a new index segment, and now and then a merge of segments, on the way from a user's
 * message to its model call (about 60 µs of a 90 µs insert, and the most of its p95).
 *
 * `messages_search_upto` says how far the index has read `messages` (ids only grow: the table
 * is AUTOINCREMENT). Storing a message asks for `indexSoon`: the rows after that point are
 * indexed in one transaction once the tasks already queued have run (the other turns of a
 * getUpdates answer send their model requests first). Everything that reads the index calls
 * `indexPending` first, so a search always sees every message stored before it; a failure
 * there reaches the reader. The delete trigger leaves out rows not indexed yet.
 */
export function indexPending(sqlite: Database): number {
  const indexer = indexerOf(sqlite);
  if (!indexer.behind()) return 0;
  return indexer.catchUp.immediate();
}

/**
 * Indexes the stored messages once the tasks already queued have run: at most once per
 * round, however many messages the round stored. A failure (the database busy or closed)
 * leaves the rows pending for the next reader or round; it never throws from the timer.
 */
export function indexSoon(sqlite: Database): void {
  const indexer = indexerOf(sqlite);
  if (indexer.scheduled) return;
  indexer.scheduled = true;
  void afterQueuedTasks().then(() => {
    indexer.scheduled = false;
    try {
      if (sqlite.open) indexPending(sqlite);
    } catch {
      // Still pending: the next search indexes them first, and reports what fails then.
    }
  });
}

interface Indexer {
  /** More messages are stored than the index has read (without a transaction: a hint). */
  behind(): boolean;
  /** Indexes the messages after the mark and moves it; the rows added. */
  catchUp: BetterSqlite3.Transaction<() => number>;
  scheduled: boolean;
}

const indexers = new WeakMap<Database, Indexer>();

function indexerOf(sqlite: Database): Indexer {
  let indexer = indexers.get(sqlite);
  if (!indexer) {
    indexer = prepare(sqlite);
    indexers.set(sqlite, indexer);
  }
  return indexer;
}

function prepare(sqlite: Database): Indexer {
  const latest = sqlite.prepare('SELECT coalesce(max(id), 0) FROM messages').pluck();
  const upto = sqlite.prepare('SELECT upto FROM messages_search_upto').pluck();
  // The scope token as migrations/0007_memory_search.sql wrote it from its trigger.
  const add = sqlite.prepare(`
    INSERT INTO messages_search (rowid, content, scope)
    SELECT m.id, m.content, 's' || hex(s.pack || '|' || s.key)
    FROM messages m JOIN sessions s ON s.id = m.session_id
    WHERE m.id > ? AND m.id <= ? AND m.role IN ('user', 'assistant') AND m.content != ''`);
  const advance = sqlite.prepare('UPDATE messages_search_upto SET upto = ?');
  return {
    behind: () => (latest.get() as number) > (upto.get() as number),
    catchUp: sqlite.transaction(() => {
      const from = upto.get() as number;
      const to = latest.get() as number;
      if (to <= from) return 0;
      const { changes } = add.run(from, to);
      advance.run(to);
      return changes;
    }),
    scheduled: false,
  };
}
