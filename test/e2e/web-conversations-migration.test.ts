/**
 * Migration 0012 (web conversations) on a database written at 0011 by a web chat whose id
 * was the owner's Telegram id: chat `1` first, then `1001` once ALLOWED_USER_IDS was set.
 * Both become conversations of the web edge's own, with their packs, history, search index,
 * jobs, outbox, ledger and stored input, whatever ALLOWED_USER_IDS says now.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MIGRATIONS } from '../../src/store/client.ts';
import { createMessageSearch } from '../../src/store/message-search.ts';
import { Database } from '../../src/store/sqlite.ts';
import { systemText, userTexts } from '../fakes/model-requests.ts';
import { ChatClient } from '../support/chat-client.ts';
import { fixturePacks, type Harness, startHarness } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-web-migration-');
let h: Harness | undefined;
let chat: ChatClient | undefined;

afterEach(async () => {
  chat?.close();
  chat = undefined;
  await h?.close();
  h = undefined;
});

/** A home written by the migrations up to 0011, with the web chat's rows under `1` and `1001`. */
function homeAt0011(): string {
  const older = path.join(temp(), 'migrations');
  cpSync(MIGRATIONS, older, { recursive: true });
  const journal = path.join(older, 'meta', '_journal.json');
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: { tag: string }[] };
  parsed.entries = parsed.entries.filter((e) => e.tag < '0012');
  writeFileSync(journal, JSON.stringify(parsed));
  const home = temp();
  const sqlite = new Database(path.join(home, 'satchel.db'));
  migrate(drizzle(sqlite), { migrationsFolder: older });
  const run = (sql: string, ...params: unknown[]) => sqlite.prepare(sql).run(...params);
  const route = `INSERT INTO conversation_routes (address, platform, chat_id, active_pack, session_id, updated_at)
    VALUES (?, 'web', ?, ?, ?, ?)`;
  const session = `INSERT INTO sessions (id, key, pack, address, kind, created_at) VALUES (?, ?, ?, ?, ?, 1)`;
  const message = `INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES (?, 't0', ?, ?, ?)`;
  // Chat 1: the web chat tried alone, bound to alpha.
  run(route, 'web:1', '1', 'alpha', 's-1', 100);
  run(session, 's-1', 'web:1:alpha', 'alpha', 'web:1', 'chat');
  run(message, 's-1', 'user', 'my fern is called Bob', 100);
  run(message, 's-1', 'assistant', 'Bob the fern, noted.', 101);
  run(session, 's-1-job', 'job:alpha:water-check:web:1', 'alpha', 'web:1', 'job');
  // Chat 1001: the same page once the allowlist named the owner, bound to beta, used later.
  run(route, 'web:1001', '1001', 'beta', 's-1001', 200);
  run(session, 's-1001', 'web:1001:beta', 'beta', 'web:1001', 'chat');
  run(message, 's-1001', 'user', 'I am reading Dune', 200);
  run(message, 's-1001', 'assistant', 'Dune, noted.', 201);
  run(
    `INSERT INTO jobs (id, pack, source, kind, manifest_key, platform, chat_id, schedule, prompt, next_run_at, created_at)
     VALUES ('j-1', 'alpha', 'manifest', 'cron', 'alpha:water-check:web:1', 'web', '1', '0 8 * * *', 'Water.', NULL, 1)`,
  );
  run(
    `INSERT INTO outbox (channel, chat_id, kind, payload, status, message_id, created_at)
     VALUES ('web', '1001', 'text', '{}', 'sent', '5', 1)`,
  );
  run(
    `INSERT INTO usage_events (ts, day, kind, provider, model, pack, chat_id, session_id, turn_id, price_known, latency_ms, ok)
     VALUES (1, '2026-11-21', 'llm', 'openai', 'gpt-4.1-mini', 'alpha', '1', 's-1', 't0', 1, 10, 1)`,
  );
  run(
    `INSERT INTO edge_inbox (platform, key, payload, received_at, status) VALUES ('web', 'k1', ?, 1, 'done')`,
    JSON.stringify({ address: { platform: 'web', chatId: '1' }, kind: 'text', text: 'hi' }),
  );
  sqlite.close();
  return home;
}

describe('migration 0012: web conversations of their own', () => {
  it('keeps both chats as conversations with their packs and history, whatever ALLOWED_USER_IDS says', async () => {
    const home = homeAt0011();
    const printed: string[] = [];
    // The allowlist names neither 1 nor 1001 now.
    h = await startHarness(
      {
        SATCHEL_HOME: home,
        SATCHEL_PACKS: fixturePacks(['alpha', 'beta']),
        ALLOWED_USER_IDS: '222',
      },
      { app: { announce: (line) => printed.push(line) } },
    );
    const rows = (sql: string) => h!.rows(sql);
    expect(
      rows('SELECT id, title, titled FROM web_conversations ORDER BY updated_at DESC'),
    ).toEqual([
      { id: 'w-1001', title: 'I am reading Dune', titled: 1 },
      { id: 'w-1', title: 'Earlier: my fern is called Bob', titled: 1 },
    ]);
    expect(
      rows('SELECT address, chat_id, active_pack FROM conversation_routes ORDER BY address'),
    ).toEqual([
      { address: 'web:w-1', chat_id: 'w-1', active_pack: 'alpha' },
      { address: 'web:w-1001', chat_id: 'w-1001', active_pack: 'beta' },
    ]);
    expect(rows('SELECT id, key, address FROM sessions ORDER BY id')).toEqual([
      { id: 's-1', key: 'web:w-1:alpha', address: 'web:w-1' },
      { id: 's-1-job', key: 'job:alpha:water-check:web:w-1', address: 'web:w-1' },
      { id: 's-1001', key: 'web:w-1001:beta', address: 'web:w-1001' },
    ]);
    expect(rows('SELECT manifest_key, chat_id FROM jobs')).toEqual([
      { manifest_key: 'alpha:water-check:web:w-1', chat_id: 'w-1' },
    ]);
    expect(rows('SELECT chat_id FROM outbox')).toEqual([{ chat_id: 'w-1001' }]);
    expect(rows('SELECT chat_id FROM usage_events')).toEqual([{ chat_id: 'w-1' }]);
    expect(
      rows("SELECT json_extract(payload, '$.address.chatId') AS chat FROM edge_inbox"),
    ).toEqual([{ chat: 'w-1' }]);
    expect(rows("SELECT name FROM sqlite_master WHERE name = '__web_moves'")).toEqual([]);
    const search = createMessageSearch(h.app.store.sqlite);
    expect(
      search.search({ pack: 'alpha', key: 'web:w-1:alpha', query: 'Bob', limit: 5 }),
    ).toHaveLength(2);

    // The page opens the most recently used, lists both, and each answers with its own pack
    // and history.
    const line = printed.findLast((l) => l.startsWith('satchel web chat: '))!;
    chat = await ChatClient.open(line.slice('satchel web chat: '.length));
    expect((await chat.conversations()).map((c) => c.id)).toEqual(['w-1001', 'w-1']);
    await chat.connect();
    await chat.send('what am I reading?');
    await chat.waitForBot(1);
    chat.close();
    chat.conversation = 'w-1';
    expect((await chat.get<{ active?: string }>('/chat/welcome?c=w-1')).body.active).toBe('alpha');
    await chat.send('what is my fern called?');
    await vi.waitFor(() => expect(h!.model.chatRequests()).toHaveLength(2));
    const [toBooks, toGarden] = h.model.chatRequests();
    expect(systemText(toBooks!)).toContain('BETA-PERSONA');
    expect(userTexts(toBooks!)).toContain('I am reading Dune');
    expect(systemText(toGarden!)).toContain('ALPHA-PERSONA');
    expect(userTexts(toGarden!)).toContain('my fern is called Bob');
    expect(rows('SELECT count(*) AS n FROM web_conversations')).toEqual([{ n: 2 }]);
  });
});
