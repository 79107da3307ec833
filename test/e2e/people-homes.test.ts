/**
 * Everyone their own home (SPEC §19): two people share a pack, and each one's rows, memory
 * lines, files and jobs are invisible to the other in every tool and in the prompt; after an
 * upgrade from a database written before people were kept, the owner's data is where it was
 * and a group keeps the home it used.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { satchel } from '../../src/cli/commands.ts';
import { Database } from '../../src/store/sqlite.ts';
import { systemText, toolResults } from '../fakes/model-requests.ts';
import { recordingIo } from '../support/cli-io.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { databaseBefore } from '../support/older-database.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-people-test-');
const h = harnessPerTest();
const GUEST = 222;
const GROUP = -100500;

/** The alpha fixture pack with `memory_search` too. */
function alphaPack(): string {
  return fixturePacks(['alpha']);
}

/** One tool call each, then an answer: the tools of one turn. */
function turnOf(...calls: { name: string; arguments: Record<string, unknown> }[]) {
  h.model.enqueue(...calls.map((c) => ({ toolCalls: [c] })), { text: 'ok' });
}

const ALL_READS = [
  { name: 'db_query', arguments: { sql: 'SELECT name FROM plants ORDER BY name' } },
  { name: 'memory', arguments: { action: 'read', file: 'MEMORY.md' } },
  { name: 'schedule', arguments: { action: 'list' } },
  { name: 'send_message', arguments: { kind: 'document', path: 'owner-only.txt' } },
];

/** What the reads of ALL_READS returned, from the request after the last of them. */
function readResults(lastRequest: number) {
  const results = toolResults(h.model.chatRequests()[lastRequest - 1]!).slice(-4);
  return { plants: results[0]!, memory: results[1]!, jobs: results[2]!, file: results[3]! };
}

describe('two people share a pack', () => {
  it("each one's rows, memory, files and jobs stay theirs, in every tool and in the prompt", async () => {
    await h.start({ SATCHEL_PACKS: alphaPack(), ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}` });
    const ownerHome = path.join(h.home, 'packs', 'alpha');
    writeFileSync(path.join(ownerHome, 'files', 'owner-only.txt'), 'the owner’s file');

    // The owner keeps a plant, a memory line and a job.
    turnOf(
      {
        name: 'db_write',
        arguments: { action: 'insert', table: 'plants', values: { name: 'OwnerFern' } },
      },
      {
        name: 'memory',
        arguments: { action: 'append', file: 'MEMORY.md', text: 'OWNER-SECRET-LINE' },
      },
      {
        name: 'schedule',
        arguments: { action: 'create', schedule: '0 9 * * *', prompt: 'water the owner’s fern' },
      },
    );
    h.say('remember my fern');
    await settled(h, 1);

    // The guest, in their own private chat, reads with every tool.
    turnOf(...ALL_READS);
    h.tg.text({ userId: GUEST, text: 'what do you know?' });
    await settled(h, 2);
    const guestRequests = h.model.chatRequests().slice(4);
    const guest = readResults(9);
    expect(guest.plants).not.toContain('OwnerFern');
    expect(guest.memory).not.toContain('OWNER-SECRET-LINE');
    expect(guest.jobs).not.toContain('water the owner');
    expect(guest.file).toMatch(/^Error:/);
    for (const request of guestRequests)
      expect(systemText(request)).not.toContain('OWNER-SECRET-LINE');

    // The guest keeps their own; the owner never sees it.
    writeFileSync(path.join(ownerHome, 'people', String(GUEST), 'files', 'guest.txt'), 'x');
    turnOf(
      {
        name: 'db_write',
        arguments: { action: 'insert', table: 'plants', values: { name: 'GuestRose' } },
      },
      {
        name: 'memory',
        arguments: { action: 'append', file: 'MEMORY.md', text: 'GUEST-SECRET-LINE' },
      },
      {
        name: 'schedule',
        arguments: { action: 'create', schedule: '0 7 * * *', prompt: 'water the guest’s rose' },
      },
    );
    h.tg.text({ userId: GUEST, text: 'remember my rose' });
    await settled(h, 3);

    turnOf(...ALL_READS.slice(0, 3), {
      name: 'send_message',
      arguments: { kind: 'document', path: 'guest.txt' },
    });
    h.say('and what do you know?');
    await settled(h, 4);
    const owner = readResults(18);
    expect(owner.plants).toContain('OwnerFern');
    expect(owner.plants).not.toContain('GuestRose');
    expect(owner.memory).toContain('OWNER-SECRET-LINE');
    expect(owner.memory).not.toContain('GUEST-SECRET-LINE');
    expect(owner.jobs).toContain('water the owner');
    expect(owner.jobs).not.toContain('water the guest');
    expect(owner.file).toMatch(/^Error:/);
    expect(systemText(h.model.chatRequests()[13]!)).toContain('OWNER-SECRET-LINE');
    expect(systemText(h.model.chatRequests()[13]!)).not.toContain('GUEST-SECRET-LINE');

    // On disk: the owner's home where it always was, the guest's under people/.
    const guestHome = path.join(ownerHome, 'people', String(GUEST));
    const rows = (file: string) =>
      new Database(file, { readonly: true }).prepare('SELECT name FROM plants').all();
    expect(rows(path.join(ownerHome, 'pack.db'))).toEqual([{ name: 'OwnerFern' }]);
    expect(rows(path.join(guestHome, 'pack.db'))).toEqual([{ name: 'GuestRose' }]);
    expect(
      h.rows('SELECT person, prompt FROM jobs WHERE source = ? ORDER BY prompt', 'tool'),
    ).toEqual([
      { person: String(GUEST), prompt: 'water the guest’s rose' },
      { person: 'owner', prompt: 'water the owner’s fern' },
    ]);
    // Every ledger row names the person it was for, and the channel.
    expect(
      h.rows(
        'SELECT person, channel, count(*) AS n FROM usage_events GROUP BY person, channel ORDER BY person',
      ),
    ).toEqual([
      { person: String(GUEST), channel: 'tg', n: 9 },
      { person: 'owner', channel: 'tg', n: 9 },
    ]);
  });
  it('a backup carries every home, and restore gives each back', async () => {
    await h.start({ SATCHEL_PACKS: alphaPack(), ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}` });
    turnOf({
      name: 'db_write',
      arguments: { action: 'insert', table: 'plants', values: { name: 'GuestRose' } },
    });
    h.tg.text({ userId: GUEST, text: 'my rose' });
    await settled(h, 1);
    await h.stop();
    const archive = path.join(tempDir(), 'people.tar.gz');
    const bio = recordingIo(h.env, h.home);
    const backup = await satchel(['backup', archive], bio);
    expect(bio.err()).toBe('');
    expect(backup).toBe(0);
    const restored = path.join(tempDir(), 'restored');
    const io = recordingIo({ ...h.env, SATCHEL_HOME: restored }, h.home);
    const code = await satchel(['restore', archive, '--home', restored], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const db = new Database(
      path.join(restored, 'packs', 'alpha', 'people', String(GUEST), 'pack.db'),
      {
        readonly: true,
      },
    );
    expect(db.prepare('SELECT name FROM plants').all()).toEqual([{ name: 'GuestRose' }]);
    db.close();
  });
});

describe('the owner is recorded once', () => {
  it("reordering ALLOWED_USER_IDS moves no one's home and makes no one else the owner", async () => {
    const first = await h.start({
      SATCHEL_PACKS: alphaPack(),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
    });
    const plant = (name: string) => ({
      name: 'db_write',
      arguments: { action: 'insert', table: 'plants', values: { name } },
    });
    turnOf(plant('OwnerFern'));
    first.tg.text({ userId: ALLOWED_USER, text: 'keep my fern' });
    await settled(first, 1);
    turnOf(plant('GuestRose'));
    first.tg.text({ userId: GUEST, text: 'keep my rose' });
    await settled(first, 2);
    await first.stop();

    // The same home, the guest listed first now.
    const second = await h.start(
      {
        SATCHEL_HOME: first.home,
        SATCHEL_PACKS: alphaPack(),
        ALLOWED_USER_IDS: `${GUEST},${ALLOWED_USER}`,
      },
      // Telegram's update ids go on from where the first run's ended.
      { beforeStart: (tg) => tg.continueUpdateIdsFrom(100) },
    );
    const read = { name: 'db_query', arguments: { sql: 'SELECT name FROM plants ORDER BY name' } };
    turnOf(read);
    // The database is the first run's: its two updates are done already.
    second.tg.text({ userId: ALLOWED_USER, text: 'which plants?' });
    await settled(second, 3);
    turnOf(read);
    second.tg.text({ userId: GUEST, text: 'which plants?' });
    await settled(second, 4);
    // Each turn: the call that reads, then the one that gets what it read.
    const [owners, guests] = [1, 3].map(
      (i) => toolResults(second.model.chatRequests()[i]!).at(-1)!,
    );
    expect(owners).toContain('OwnerFern');
    expect(owners).not.toContain('GuestRose');
    expect(guests).toContain('GuestRose');
    expect(guests).not.toContain('OwnerFern');

    // The guest, first in the list now, is still not the owner.
    second.tg.text({ userId: GUEST, text: '/people' });
    await settled(second, 5);
    expect(second.tg.texts(GUEST).at(-1)).toBe('Only the owner can see and change who uses me.');
  });
});

describe('the upgrade', () => {
  it("keeps the owner's data where it was, and a group bound before keeps the owner's home", async () => {
    const { home, sqlite } = databaseBefore('0015', tempDir);
    for (const chat of [ALLOWED_USER, GROUP])
      sqlite
        .prepare(
          'INSERT INTO conversation_routes (address, platform, chat_id, active_pack, updated_at) VALUES (?, ?, ?, ?, 0)',
        )
        .run(`tg:${chat}`, 'tg', String(chat), 'alpha');
    sqlite.close();
    // The owner's pack home as the satchel of that time left it, with a row in it.
    const ownerHome = path.join(home, 'packs', 'alpha');
    mkdirSync(ownerHome, { recursive: true });
    const packDb = new Database(path.join(ownerHome, 'pack.db'));
    packDb.exec(
      'CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, watered_on TEXT)',
    );
    packDb.prepare('INSERT INTO plants (name) VALUES (?)').run('OldFern');
    packDb.close();

    await h.start({
      SATCHEL_HOME: home,
      SATCHEL_PACKS: alphaPack(),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
      GROUP_REPLY: 'all',
    });
    const query = { name: 'db_query', arguments: { sql: 'SELECT name FROM plants' } };
    turnOf(query);
    h.say('my plants?');
    await settled(h, 1);
    expect(toolResults(h.model.chatRequests()[1]!)[0]).toContain('OldFern');

    // The group bound before keeps the owner's home, whoever writes there.
    turnOf(query);
    h.tg.text({ userId: GUEST, chatId: GROUP, chatType: 'supergroup', text: 'group plants?' });
    await settled(h, 2);
    expect(toolResults(h.model.chatRequests()[3]!)[0]).toContain('OldFern');

    // The other person starts with an empty home of their own.
    turnOf(query);
    h.tg.text({ userId: GUEST, text: 'my plants?' });
    await settled(h, 3);
    expect(toolResults(h.model.chatRequests()[5]!)[0]).not.toContain('OldFern');
    expect(existsSync(path.join(ownerHome, 'people', String(GUEST), 'pack.db'))).toBe(true);
    expect(existsSync(path.join(ownerHome, 'groups'))).toBe(false);

    // /people says once that what others wrote before stayed in the owner's home.
    h.say('/people');
    await settled(h, 4);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(
      'what others wrote before stayed in your home',
    );
    h.say('/people');
    await settled(h, 5);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).not.toContain('stayed in your home');
  });

  it('a new group gets a home of its own, shared by its members', async () => {
    await h.start({
      SATCHEL_PACKS: alphaPack(),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
      GROUP_REPLY: 'all',
    });
    turnOf({
      name: 'db_write',
      arguments: { action: 'insert', table: 'plants', values: { name: 'OwnerFern' } },
    });
    h.say('my fern');
    await settled(h, 1);
    turnOf({
      name: 'db_write',
      arguments: { action: 'insert', table: 'plants', values: { name: 'GroupIvy' } },
    });
    h.tg.text({ userId: GUEST, chatId: GROUP, chatType: 'supergroup', text: 'our ivy' });
    await settled(h, 2);
    turnOf({ name: 'db_query', arguments: { sql: 'SELECT name FROM plants' } });
    h.tg.text({ userId: ALLOWED_USER, chatId: GROUP, chatType: 'supergroup', text: 'our plants?' });
    await settled(h, 3);
    const seen = toolResults(h.model.chatRequests()[5]!).at(-1)!;
    expect(seen).toContain('GroupIvy');
    expect(seen).not.toContain('OwnerFern');
    expect(
      existsSync(path.join(h.home, 'packs', 'alpha', 'groups', `tg-${GROUP}`, 'pack.db')),
    ).toBe(true);
  });
});
