/**
 * Every YAML file the owner or a pack supplies is read with SPEC §14's limits (1 MB, 1,000
 * entries, 100 alias expansions): one past them is refused in one sentence naming the
 * file, by the command that read it, never with a stack trace.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliCommand } from '../../src/cli/command.ts';
import { modelsCommand } from '../../src/cli/models.ts';
import { packNewCommand } from '../../src/cli/pack-new.ts';
import { packTestCommand } from '../../src/cli/pack-test.ts';
import { packValidateCommand } from '../../src/cli/pack-validate.ts';
import { recordingIo } from '../support/cli-io.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { ALIAS_BOMB } from '../support/yaml-bomb.ts';

const temp = tempDirs('satchel-yaml-limits-');

async function run(command: CliCommand, args: string[], env: Record<string, string>, cwd: string) {
  const io = recordingIo(env, cwd);
  const code = await command.run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** A catalog of `n` priced entries, one a line. */
const catalogOf = (n: number) =>
  Array.from({ length: n }, (_, i) => `openai:model-${i}: { input: 1, output: 2 }\n`).join('');

describe("the owner's catalog (SATCHEL_MODELS) within SPEC §14's limits", () => {
  async function models(text: string | Buffer) {
    const dir = temp();
    const file = path.join(dir, 'models.yaml');
    writeFileSync(file, text);
    return { file, ...(await run(modelsCommand, [], { SATCHEL_MODELS: file }, dir)) };
  }

  it('refuses an alias bomb in one sentence naming the file', async () => {
    expect(Buffer.byteLength(ALIAS_BOMB)).toBeLessThan(600);
    const { code, out, err, file } = await models(ALIAS_BOMB);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      `satchel models: Invalid model catalog:\n- ${file}: expands its aliases (*name) more than 100 times; satchel expands at most 100\n`,
    );
  });

  it('takes 1,000 entries and refuses 1,001, naming the line of the mapping', async () => {
    const full = await models(catalogOf(1000));
    expect(full.err).toBe('');
    expect(full.code).toBe(0);
    expect(full.out).toContain('openai:model-999 ');

    const over = await models(catalogOf(1001));
    expect(over.code).toBe(1);
    expect(over.err).toBe(
      `satchel models: Invalid model catalog:\n- ${over.file} line 1: has 1,001 entries in one mapping; satchel reads at most 1,000\n`,
    );
  });

  it('refuses a file over 1 MB from its size, and more than 100 aliases', async () => {
    const big = await models(`# ${'x'.repeat(1024 * 1024)}\n`);
    expect(big.code).toBe(1);
    expect(big.err).toBe(
      `satchel models: Invalid model catalog:\n- ${big.file}: is 1.0 MB; satchel reads at most 1 MB of YAML from one file\n`,
    );

    const aliases = [
      'openai:a: &price { input: 1, output: 2 }',
      ...Array.from({ length: 101 }, (_, i) => `openai:b${i}: *price`),
      '',
    ].join('\n');
    const many = await models(aliases);
    expect(many.code).toBe(1);
    expect(many.err).toBe(
      `satchel models: Invalid model catalog:\n- ${many.file} line 102: has more than 100 aliases (*name); satchel reads at most 100\n`,
    );
  });
});

describe("a pack's YAML within the same limits", () => {
  async function demoPack() {
    const root = temp();
    expect(await packNewCommand.run(['demo', '--dir', root], recordingIo({}, root))).toBe(0);
    return path.join(root, 'demo');
  }

  it('pack validate refuses an alias bomb in pack.yml or in SKILL.md in one line naming the file', async () => {
    const bomb = 'expands its aliases (*name) more than 100 times; satchel expands at most 100';
    const dir = await demoPack();
    const manifest = path.join(dir, 'pack.yml');
    const valid = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, `${valid}\n${ALIAS_BOMB}`);
    const inManifest = await run(packValidateCommand, [dir], {}, dir);
    expect(inManifest.code).toBe(1);
    expect(inManifest.err).toBe(`invalid pack (1 problem):\n\`pack.yml\`: (yaml) — ${bomb}\n`);

    writeFileSync(manifest, valid);
    const skill = path.join(dir, 'skills', 'notes', 'SKILL.md');
    writeFileSync(skill, readFileSync(skill, 'utf8').replace(/^---\n/, `---\n${ALIAS_BOMB}`));
    const inSkill = await run(packValidateCommand, [dir], {}, dir);
    expect(inSkill.code).toBe(1);
    expect(inSkill.err).toBe(
      `invalid pack (1 problem):\n\`skills/notes/SKILL.md\`: (frontmatter) — ${bomb}\n`,
    );
  });

  it("pack test fails a test file that nests too deep, in one line, and runs the pack's others", async () => {
    const dir = await demoPack();
    mkdirSync(path.join(dir, 'tests'), { recursive: true });
    writeFileSync(
      path.join(dir, 'tests', 'deep.yml'),
      `tests: ${'['.repeat(80)}${']'.repeat(80)}\n`,
    );
    const { code, out } = await run(packTestCommand, [dir], {}, dir);
    expect(code).toBe(1);
    expect(out).toContain(
      '✗ deep.yml\n    not valid YAML: line 1: nests mappings and lists more than 64 deep; satchel reads at most 64\n',
    );
    expect(out).toMatch(/✓ notes\.yml: /);
  });
});
