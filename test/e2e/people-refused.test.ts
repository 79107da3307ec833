/**
 * A pack's migrations run on every home (SPEC §19): a home whose database cannot be brought up
 * to date is named, and only its conversations are refused; the owner and everyone else go on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { toolResults } from '../fakes/model-requests.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-refused-test-');

const h = harnessPerTest();
const GUEST = 222;
const OTHER = 333;

/** The alpha pack with a migration that adds a column to `plants`. */
function alphaWithMigration(): string {
  const dir = fixturePacks(['alpha']);
  mkdirSync(path.join(dir, 'alpha', 'migrations'));
  writeFileSync(
    path.join(dir, 'alpha', 'migrations', '0001_notes.sql'),
    'ALTER TABLE plants ADD COLUMN note TEXT;\n',
  );
  return dir;
}

describe('a home whose migration fails', () => {
  it('is named in the log; only its person is refused, the owner and others go on', async () => {
    const home = tempDir();
    // The guest's home already has the column the migration adds: the migration fails there.
    const guestHome = path.join(home, 'packs', 'alpha', 'people', String(GUEST));
    mkdirSync(guestHome, { recursive: true });
    const db = new Database(path.join(guestHome, 'pack.db'));
    db.exec('CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT)');
    db.prepare('INSERT INTO plants (name) VALUES (?)').run('GuestRose');
    db.close();

    await h.start({
      SATCHEL_HOME: home,
      SATCHEL_PACKS: alphaWithMigration(),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST},${OTHER}`,
    });
    const [refused] = h.logs('pack_home_refused');
    expect(refused).toMatchObject({ pack: 'alpha', home: `person:${GUEST}` });
    expect(refused?.msg).toContain('the home of person 222');
    expect(refused?.msg).toContain('0001_notes.sql');
    expect(refused?.msg).toContain('duplicate column name: note');

    // The guest is told, and no model call is made for them.
    h.tg.text({ userId: GUEST, text: 'my plants?' });
    await settled(h, 1);
    expect(h.tg.texts(GUEST)).toEqual([
      'The Alpha Garden pack cannot open the home of person 222: its database could not be brought up to date. The owner should run <code>npx satchel doctor</code>.',
    ]);
    expect(h.model.chatRequests()).toHaveLength(0);

    // The owner and another person are served, each in their own home, migrated.
    const query = { name: 'db_query', arguments: { sql: 'SELECT name, note FROM plants' } };
    h.model.enqueue({ toolCalls: [query] }, { text: 'yours' });
    h.say('my plants?');
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('yours');
    expect(toolResults(h.model.chatRequests()[1]!)[0]).not.toMatch(/^Error/);
    h.model.enqueue({ toolCalls: [query] }, { text: 'theirs' });
    h.tg.text({ userId: OTHER, text: 'my plants?' });
    await settled(h, 3);
    expect(h.tg.texts(OTHER).at(-1)).toBe('theirs');
    expect(toolResults(h.model.chatRequests()[3]!)[0]).not.toMatch(/^Error/);

    // The guest's data is left as it was.
    const after = new Database(path.join(guestHome, 'pack.db'), { readonly: true });
    expect(after.prepare('SELECT name FROM plants').all()).toEqual([{ name: 'GuestRose' }]);
    after.close();
  });
});
