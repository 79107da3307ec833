import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Home, OWNER_HOME } from '../../src/core/home.ts';
import { loadPack } from '../../src/packs/loader.ts';
import { createPackRegistry } from '../../src/packs/registry.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-open-homes-');
const person = (id: string): Home => ({ kind: 'person', person: id });

/** A registry of the alpha fixture that keeps two other homes open. */
function registry() {
  const packs = createPackRegistry([loadPack(path.join(FIXTURE_PACKS, 'alpha'))], temp(), {
    openHomes: 2,
  });
  const plant = (home: Home, name: string) =>
    packs.storage('alpha', home).db.prepare('INSERT INTO plants (name) VALUES (?)').run(name);
  const plants = (home: Home) =>
    packs.storage('alpha', home).db.prepare('SELECT name FROM plants').pluck().all();
  return { packs, plant, plants };
}

describe("other homes' storages", () => {
  it('stay open for the homes used last, and the one used longest ago closes', () => {
    const { packs, plant, plants } = registry();
    const owner = packs.storage('alpha');
    const ann = packs.storage('alpha', person('ann'));
    plant(person('ann'), 'fern');
    const bob = packs.storage('alpha', person('bob'));
    expect(packs.storage('alpha', person('ann'))).toBe(ann); // used again: bob is the oldest
    packs.storage('alpha', person('cat'));
    expect([ann.db.open, bob.db.open]).toEqual([true, false]);
    packs.storage('alpha', person('dan'));
    expect(ann.db.open).toBe(false);
    expect(owner.db.open).toBe(true);
    // Opened again on its next use, with what it holds.
    expect(plants(person('ann'))).toEqual(['fern']);
    packs.close();
  });

  it('are never closed while a turn holds one, and close once released', () => {
    const { packs } = registry();
    const ann = packs.hold('alpha', person('ann'));
    const bob = packs.hold('alpha', person('bob'));
    const cat = packs.hold('alpha', person('cat'));
    // Every other home is held: the one just opened is handed out open all the same.
    const dan = packs.storage('alpha', person('dan'));
    expect([ann, bob, cat].map((h) => h.storage.db.open)).toEqual([true, true, true]);
    expect(dan.db.open).toBe(true);
    ann.release();
    ann.release(); // a second release changes nothing
    // Four open, two allowed: ann and dan, held by nobody, close; bob and cat are held.
    expect([ann.storage, bob.storage, cat.storage, dan].map((s) => s.db.open)).toEqual([
      false,
      true,
      true,
      false,
    ]);
    bob.release();
    cat.release();
    expect([bob, cat].map((h) => h.storage.db.open)).toEqual([true, true]);
    // The next home closes the one used longest ago that nobody holds.
    packs.storage('alpha', person('eve'));
    expect([bob, cat].map((h) => h.storage.db.open)).toEqual([false, true]);
    expect(packs.storage('alpha', OWNER_HOME).db.open).toBe(true);
    packs.close();
  });
});
