/**
 * Migration 0011 (string ids) on a database written at 0009: every route, session, job,
 * outbox row, ledger row and grant keeps working, its ids now TEXT holding the same digits,
 * and the terminal's conversation moves from chat 1 to `local` with its history and index.
 */
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import type { Edge } from '../../src/core/edge.ts';
import type { Address, InboundEvent } from '../../src/core/types.ts';
import { createMessageSearch } from '../../src/store/message-search.ts';
import { conversationRoutes, jobs, outbox, usageEvents } from '../../src/store/schema.ts';
import { createMemoryChannel, type MemoryChannel } from '../fakes/memory-channel.ts';
import { coreRigs, drained } from '../support/core-on-edges.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { databaseBefore } from '../support/older-database.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-ids-migration-');
const rigs = coreRigs();
const NOW = new FakeClock().now();
const GROUP = -1001234567890;

/** A home whose database was written by the migrations up to 0009, with rows in every table. */
function homeAt0009(): string {
  const { home, sqlite } = databaseBefore('0010', temp);
  const run = (sql: string, ...params: unknown[]) => sqlite.prepare(sql).run(...params);
  const route = `INSERT INTO conversation_routes (address, platform, chat_id, thread_id, active_pack, session_id, updated_at)
    VALUES (?, ?, ?, ?, 'alpha', ?, 1)`;
  const session = `INSERT INTO sessions (id, key, pack, address, kind, created_at) VALUES (?, ?, 'alpha', ?, ?, 1)`;
  const message = `INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES (?, 't0', ?, ?, 1)`;
  // A private Telegram chat, a forum topic of a supergroup, and the terminal's chat 1.
  run(route, 'tg:111', 'tg', 111, null, 's-private');
  run(session, 's-private', 'tg:111:alpha', 'tg:111', 'chat');
  run(message, 's-private', 'user', 'my fern is called Bob');
  run(message, 's-private', 'assistant', 'Bob the fern, noted.');
  run(route, `tg:${GROUP}:7`, 'tg', GROUP, 7, 's-topic');
  run(session, 's-topic', `tg:${GROUP}:7:alpha`, `tg:${GROUP}:7`, 'chat');
  run(route, 'local:1', 'local', 1, null, 's-local');
  run(session, 's-local', 'local:1:alpha', 'local:1', 'chat');
  run(message, 's-local', 'user', 'the cactus on the balcony is called Spike');
  run(session, 's-local-job', 'job:alpha:water-check:local:1', 'local:1', 'job');
  const job = `INSERT INTO jobs (id, pack, source, kind, manifest_key, platform, chat_id, thread_id, schedule, prompt, skill, next_run_at, created_at)
    VALUES (?, 'alpha', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`;
  run(
    job,
    'j-topic',
    'tool',
    'once',
    null,
    'tg',
    GROUP,
    7,
    '2026-11-22T12:30:00Z',
    'Water the fern.',
    null,
    NOW + 30 * 60_000,
  );
  run(
    job,
    'j-local',
    'manifest',
    'cron',
    'alpha:water-check:local:1',
    'local',
    1,
    null,
    '0 8 * * *',
    null,
    'alpha_one',
    NOW + 20 * 3_600_000,
  );
  const row = `INSERT INTO outbox (channel, chat_id, thread_id, kind, payload, status, message_id, created_at)
    VALUES ('tg', ?, ?, ?, ?, ?, ?, 1)`;
  const part = (text: string) => ({ text, plain: text });
  run(
    row,
    GROUP,
    7,
    'text',
    JSON.stringify({ kind: 'text', part: part('held back') }),
    'pending',
    null,
  );
  run(
    row,
    111,
    null,
    'text',
    JSON.stringify({ kind: 'text', part: part('sent before') }),
    'sent',
    1000,
  );
  run(
    row,
    111,
    null,
    'edit',
    JSON.stringify({ kind: 'edit', messageId: 1000, part: part('edited') }),
    'failed',
    null,
  );
  const usage = `INSERT INTO usage_events (ts, day, kind, provider, model, pack, chat_id, thread_id, session_id, turn_id, price_known, latency_ms, ok)
    VALUES (1, '2026-11-21', 'llm', 'openai', 'gpt-4.1-mini', 'alpha', ?, ?, ?, 't0', 1, 10, 1)`;
  run(usage, GROUP, 7, 's-topic');
  run(usage, 1, null, 's-local');
  run(
    "INSERT INTO tool_grants (pack, tool, granted_at) VALUES ('alpha', 'memory', ?)",
    NOW - 60_000,
  );
  run(
    "INSERT INTO edge_inbox (platform, key, payload, received_at) VALUES ('web', 'k1', ?, 1)",
    JSON.stringify({ address: { platform: 'web', chatId: 111 }, senderId: 111, messageId: 5 }),
  );
  sqlite.close();
  return home;
}

/** The core on the migrated home, with memory channels for Telegram's and the terminal's chats. */
function start(home: string) {
  const channels: Record<string, MemoryChannel> = {};
  const edges = ['tg', 'local'].map((platform) => ({
    platform,
    name: platform,
    connect: (): Edge => {
      channels[platform] = createMemoryChannel({ platform });
      // As Telegram's edge says it: its groups' ids are negative (the terminal's chat is private).
      const chatType = (to: Address) => (to.chatId.startsWith('-') ? 'supergroup' : 'private');
      return { platform, channel: channels[platform], chatType };
    },
  }));
  const rig = rigs({ edges, home, packs: ['alpha', 'beta'] });
  const rows = (sql: string) => rig.core.store.sqlite.prepare(sql).all();
  return { ...rig, channels, rows };
}

let keys = 0;
const said = (to: Address, text: string): InboundEvent => ({
  origin: { platform: to.platform, keys: [`m${++keys}`] },
  address: to,
  chatType: 'private',
  senderId: '111',
  receivedAt: NOW,
  ...(text.startsWith('/')
    ? { kind: 'command' as const, command: text.slice(1), args: '' }
    : { kind: 'text' as const, text }),
});

describe('migration 0011: ids become strings', () => {
  it('keeps every row as the same digits, and the terminal chat 1 as local', () => {
    const { rows } = start(homeAt0009());
    expect(
      rows('SELECT address, chat_id, thread_id FROM conversation_routes ORDER BY address'),
    ).toEqual([
      { address: 'local:local', chat_id: 'local', thread_id: null },
      { address: `tg:${GROUP}:7`, chat_id: String(GROUP), thread_id: '7' },
      { address: 'tg:111', chat_id: '111', thread_id: null },
    ]);
    expect(rows('SELECT id, key, address FROM sessions ORDER BY id')).toEqual([
      { id: 's-local', key: 'local:local:alpha', address: 'local:local' },
      { id: 's-local-job', key: 'job:alpha:water-check:local:local', address: 'local:local' },
      { id: 's-private', key: 'tg:111:alpha', address: 'tg:111' },
      { id: 's-topic', key: `tg:${GROUP}:7:alpha`, address: `tg:${GROUP}:7` },
    ]);
    expect(rows('SELECT id, manifest_key, chat_id, thread_id FROM jobs ORDER BY id')).toEqual([
      {
        id: 'j-local',
        manifest_key: 'alpha:water-check:local:local',
        chat_id: 'local',
        thread_id: null,
      },
      { id: 'j-topic', manifest_key: null, chat_id: String(GROUP), thread_id: '7' },
    ]);
    expect(
      rows(
        "SELECT chat_id, thread_id, message_id, json_extract(payload, '$.messageId') AS edits FROM outbox ORDER BY id",
      ),
    ).toEqual([
      { chat_id: String(GROUP), thread_id: '7', message_id: null, edits: null },
      { chat_id: '111', thread_id: null, message_id: '1000', edits: null },
      { chat_id: '111', thread_id: null, message_id: null, edits: '1000' },
    ]);
    expect(rows('SELECT chat_id, thread_id FROM usage_events ORDER BY id')).toEqual([
      { chat_id: String(GROUP), thread_id: '7' },
      { chat_id: 'local', thread_id: null },
    ]);
    expect(rows('SELECT payload FROM edge_inbox')).toEqual([
      {
        payload: JSON.stringify({
          // 0012 then gives the web chat's conversation an id of its own.
          address: { platform: 'web', chatId: 'w-111' },
          senderId: '111',
          messageId: '5',
        }),
      },
    ]);
    expect(rows('SELECT pack, tool FROM tool_grants')).toEqual([{ pack: 'alpha', tool: 'memory' }]);
  });

  it('leaves every index the schema declares on the tables it rebuilt', () => {
    const { rows } = start(homeAt0009());
    for (const table of [conversationRoutes, jobs, outbox, usageEvents]) {
      const { name, indexes } = getTableConfig(table);
      const found = rows(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '${name}' AND sql IS NOT NULL`,
      );
      expect(found.map((r) => (r as { name: string }).name).sort()).toEqual(
        indexes.map((i) => i.config.name).sort(),
      );
    }
  });

  it('delivers the held-back row, runs the job, and answers on the old routes, sessions and grant', async () => {
    const { core, clock, model, channels, rows } = start(homeAt0009());
    const topic: Address = { platform: 'tg', chatId: String(GROUP), threadId: '7' };
    const dm: Address = { platform: 'tg', chatId: '111' };
    const local: Address = { platform: 'local', chatId: 'local' };
    await core.outbox.resumeUnsent();
    expect(channels.tg!.transcript(topic)).toEqual(['held back']);

    // Bound routes answer with their pack (two are installed) and the same session.
    model.script([{ answer: 'Bob is thirsty.' }]);
    core.pipeline.accept(said(dm, 'how is my fern?'));
    await drained(core);
    expect(channels.tg!.transcript(dm)).toEqual(['Bob is thirsty.\n\n— Alpha Garden']);
    expect(model.seen()[0]).toContain('my fern is called Bob');

    model.script([{ answer: 'Spike is fine.' }]);
    core.pipeline.accept(said(local, 'and the cactus?'));
    await drained(core);
    expect(channels.local!.transcript(local)).toEqual(['Spike is fine.\n\n— Alpha Garden']);
    expect(model.seen()[0]).toContain('the cactus on the balcony is called Spike');
    const search = createMessageSearch(core.store.sqlite);
    expect(
      search.search({ pack: 'alpha', key: 'local:local:alpha', query: 'Spike', limit: 5 }),
    ).toHaveLength(2);

    core.pipeline.accept(said(dm, '/approvals'));
    await drained(core);
    expect(channels.tg!.transcript(dm).at(-1)).toContain('memory in Alpha Garden');

    model.script([{ answer: 'Time to water the fern.' }]);
    core.scheduler.start();
    clock.advance(31 * 60_000);
    await drained(core);
    await core.pipeline.idle();
    await core.outbox.idle();
    expect(channels.tg!.transcript(topic)).toEqual(['held back', 'Time to water the fern.']);
    expect(rows("SELECT id FROM jobs WHERE id = 'j-topic'")).toEqual([]);
  });
});
