import { afterEach, describe, expect, it } from 'vitest';
import { afterQueuedTasks } from '../../src/core/background.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createMessageSearch } from '../../src/store/message-search.ts';
import { indexPending } from '../../src/store/search-index.ts';
import { createSessionRepo } from '../../src/store/session-repo.ts';
import { databaseBefore } from '../support/older-database.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-search-index-');
let store: CoreStore | undefined;
afterEach(() => store?.close());

/** The FTS5 table's rows for `word`, read directly (not through a reader that catches up). */
const indexed = (s: CoreStore, word: string) =>
  s.sqlite.prepare('SELECT rowid FROM messages_search WHERE messages_search MATCH ?').all(word)
    .length;
const integrity = (s: CoreStore) =>
  s.sqlite.exec(
    "INSERT INTO messages_search (messages_search, rank) VALUES ('integrity-check', 1)",
  );

function storeWithSession(home = temp()) {
  store = openCoreStore(home);
  const repo = createSessionRepo(store.db);
  const address = { platform: 'tg', chatId: '1' } as const;
  const session = repo.createSession({ key: 'tg:1:journal', pack: 'journal', address }, 1);
  const add = (content: string, role: 'user' | 'assistant' | 'tool' = 'user') =>
    repo.addMessage({ sessionId: session.id, turnId: 't', role, content }, 2);
  const search = (query: string) =>
    createMessageSearch(store!.sqlite)
      .search({ pack: 'journal', key: 'tg:1:journal', query, limit: 5 })
      .map((m) => m.snippet);
  return { store, repo, session, add, search };
}

describe('the search index, written after the turn', () => {
  it('leaves a stored message out of its commit and indexes it once the queued tasks ran', async () => {
    const { store, add } = storeWithSession();
    add('We hiked to the glacier');
    add('a glacier row from a tool', 'tool');
    expect(indexed(store, 'glacier')).toBe(0);
    await afterQueuedTasks();
    await afterQueuedTasks();
    // The user's line only: tool results were never indexed.
    expect(indexed(store, 'glacier')).toBe(1);
    integrity(store);
  });

  it('is caught up by a search before it reads, so a search sees every stored message', () => {
    const { store, add, search } = storeWithSession();
    add('The ferry leaves at noon');
    expect(indexed(store, 'ferry')).toBe(0);
    expect(search('ferry')).toEqual(['The [ferry] leaves at noon']);
    expect(indexed(store, 'ferry')).toBe(1);
    expect(indexPending(store.sqlite)).toBe(0);
  });

  it('deletes a message that was never indexed without touching the index', () => {
    const { store, add, search } = storeWithSession();
    add('an indexed line about otters');
    expect(indexPending(store.sqlite)).toBe(1);
    add('a pending line about otters');
    store.sqlite.exec("DELETE FROM messages WHERE content LIKE 'a pending%'");
    integrity(store);
    expect(search('otters')).toEqual(['an indexed line about [otters]']);
    store.sqlite.exec('DELETE FROM messages');
    integrity(store);
    expect(indexed(store, 'otters')).toBe(0);
  });

  it('indexes what an earlier run stored but did not index, after a restart', () => {
    const home = temp();
    const first = storeWithSession(home);
    first.add('a note about lanterns');
    first.store.close();
    store = undefined;
    const again = openCoreStore(home);
    store = again;
    expect(indexed(again, 'lanterns')).toBe(0);
    expect(indexPending(again.sqlite)).toBe(1);
    expect(indexed(again, 'lanterns')).toBe(1);
    integrity(again);
  });

  it('starts from the messages its migration found indexed: none twice, none lost', () => {
    const { home, sqlite } = databaseBefore('0021', temp);
    sqlite
      .prepare(
        "INSERT INTO sessions (id, key, pack, address, created_at) VALUES ('s1', 'tg:1:journal', 'journal', '{}', 1)",
      )
      .run();
    sqlite
      .prepare(
        "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('s1', 't', 'user', 'old harbour', 2)",
      )
      .run();
    sqlite.close();
    store = openCoreStore(home);
    expect(indexPending(store.sqlite)).toBe(0);
    expect(indexed(store, 'harbour')).toBe(1);
    integrity(store);
  });
});
