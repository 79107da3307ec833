import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveUnique } from '../../src/inbound/documents.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const h = harnessPerTest();
const temp = tempDirs('satchel-file-modes-');
const mode = (file: string) => `0${(statSync(file).mode & 0o777).toString(8)}`;

// The usual umask (022) would leave new files readable by everyone: satchel must not rely on it.
let umask: number;
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
});

describe('SATCHEL_HOME is its owner alone', () => {
  it('a fresh start creates the home 0700 and the databases, notes and pack folders 0600/0700', async () => {
    const home = path.join(temp(), 'state', 'home');
    await h.start({ SATCHEL_HOME: home, SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue({ text: 'Hi.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await settled(h, 1);
    expect(mode(home)).toBe('0700');
    expect(mode(path.dirname(home))).toBe('0700');
    for (const file of ['satchel.db', 'satchel.db-wal', 'satchel.db-shm'])
      expect([file, mode(path.join(home, file))]).toEqual([file, '0600']);
    const alpha = path.join(home, 'packs', 'alpha');
    for (const dir of [path.join(home, 'packs'), alpha, path.join(alpha, 'files')])
      expect([dir, mode(dir)]).toEqual([dir, '0700']);
    for (const file of ['pack.db', 'pack.db-wal', 'USER.md', 'MEMORY.md'])
      expect([file, mode(path.join(alpha, file))]).toEqual([file, '0600']);
  });

  it('a document the user sends is saved 0600', () => {
    const dir = temp();
    const name = saveUnique(dir, 'notes.txt', Buffer.from('private'));
    expect(mode(path.join(dir, name))).toBe('0600');
  });
});
