import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_PACKS } from '../support/harness.ts';

const BIN = fileURLToPath(new URL('../../scripts/satchel.mjs', import.meta.url));
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const satchel = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

describe('satchel pack validate', () => {
  it('summarizes a valid pack and exits 0', () => {
    const run = satchel('pack', 'validate', path.join(FIXTURE_PACKS, 'alpha'));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('ok: alpha 1.0.0 (Alpha Garden)');
    expect(run.stdout).toContain('skills: /alpha_one, alpha_two');
  });

  it('prints file, field and problem for a bad manifest and exits non-zero', () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'satchel-cli-')), 'beta');
    temps.push(path.dirname(dir));
    cpSync(path.join(FIXTURE_PACKS, 'beta'), dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'pack.yml'),
      'name: beta\nversion: 1.0.0\ndisplay_name: Beta\ndescription: d\nskills: [beta_one]\ntools: [shell]\n',
    );
    const run = satchel('pack', 'validate', dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path.join(dir, 'pack.yml')}: tools[0]: `);
  });
});
