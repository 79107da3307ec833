import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALLOWED_USER, type Harness, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
let first: Harness;
let second: Harness;

// The tests of a file run in order: the second sees what the first one left behind.
describe('harnessPerTest', () => {
  it('stands for the harness the test started last, and says things as the allowed user', async () => {
    first = await h.start();
    await first.close(); // closed twice (here and after the test): the second does nothing
    second = await h.start();
    expect(h.tg).toBe(second.tg);
    expect(h.home).toBe(second.home);

    h.say('hi');
    await settled(h, 1);
    expect(second.tg.texts(ALLOWED_USER)).toEqual(['echo: hi']);
    expect(h.rows('SELECT role FROM messages ORDER BY id')).toEqual([
      { role: 'user' },
      { role: 'assistant' },
    ]);
  });

  it('has closed every harness the last test started, and stands for none until a start', async () => {
    expect(existsSync(first.home)).toBe(false);
    expect(existsSync(second.home)).toBe(false);
    await expect(fetch(`${second.tg.apiRoot}/bot${second.tg.token}/getMe`)).rejects.toThrow();
    expect(() => h.tg).toThrow('harnessPerTest: the test has not started a harness');
  });
});
