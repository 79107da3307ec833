import { describe, expect, it } from 'vitest';
import { openCoreStore } from '../../src/store/client.ts';
import { createMessageSearch, ftsExpressions } from '../../src/store/message-search.ts';
import { databaseBefore } from '../support/older-database.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-fts-');

describe('the message search index', () => {
  it('is built by its migration for the messages stored before it', () => {
    // The migrations up to 0003 only: a database from before memory_search existed.
    const { home, sqlite } = databaseBefore('0004', temp);
    sqlite
      .prepare(
        "INSERT INTO sessions (id, key, pack, address, created_at) VALUES ('s1', 'tg:1:journal', 'journal', '{}', 1)",
      )
      .run();
    const insert = sqlite.prepare(
      "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('s1', 't', ?, ?, 2)",
    );
    insert.run('user', 'We hiked to the glacier on Sunday');
    insert.run('tool', 'glacier rows from a tool');
    sqlite.close();

    const store = openCoreStore(home);
    const search = createMessageSearch(store.sqlite);
    expect(
      search.search({ pack: 'journal', key: 'tg:1:journal', query: 'glacier', limit: 5 }),
    ).toEqual([
      {
        sessionId: 's1',
        role: 'user',
        createdAt: 2,
        snippet: 'We hiked to the [glacier] on Sunday',
        // Its session never read outside content.
        untrusted: false,
      },
    ]);
    store.close();
  });

  it('finds messages with every word first, newest first, then those with any', () => {
    const home = temp();
    const store = openCoreStore(home);
    store.sqlite
      .prepare(
        "INSERT INTO sessions (id, key, pack, address, created_at) VALUES ('s1', 'tg:1:journal', 'journal', '{}', 1)",
      )
      .run();
    const insert = store.sqlite.prepare(
      "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('s1', 't', 'user', ?, ?)",
    );
    insert.run('red boat', 1);
    insert.run('red car', 2);
    insert.run('red car again', 3);
    insert.run('blue boat', 4);
    const search = createMessageSearch(store.sqlite);
    const found = search.search({
      pack: 'journal',
      key: 'tg:1:journal',
      query: 'red car',
      limit: 3,
    });
    expect(found.map((m) => m.createdAt)).toEqual([3, 2, 1]);
    store.close();
  });

  it("quotes the model's words so FTS5 syntax cannot be injected", () => {
    expect(ftsExpressions('anna NOT scope:x*')).toEqual({
      every: '"anna" AND "NOT" AND "scope" AND "x"',
      any: '"anna" OR "NOT" OR "scope" OR "x"',
    });
    expect(ftsExpressions('  ¿? ')).toBeUndefined();
  });
});
