import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PACK_TEST_SCHEMA_FILE, packTestJsonSchema } from '../../src/pack-test/test-file.ts';
import { PACK_SCHEMA_FILE, packJsonSchema } from '../../src/packs/json-schema.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const committed = JSON.parse(readFileSync(path.join(REPO, PACK_SCHEMA_FILE), 'utf8'));
/** The committed JSON Schema read back as a validator: the schema editors use, not zod's. */
const fromJson = z.fromJSONSchema(committed);
const BUNDLED = ['assistant', 'habits', 'journal', 'vocab'];
const manifestOf = (pack: string) =>
  readFileSync(path.join(REPO, 'packs', pack, 'pack.yml'), 'utf8');

describe('pack.schema.json', () => {
  it('is the schema generated from the zod manifest schema (run `npm run schema` if not)', () => {
    expect(committed).toEqual(packJsonSchema());
  });

  it.each(BUNDLED)('validates the bundled %s manifest, which points editors at it', (pack) => {
    const text = manifestOf(pack);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../pack.schema.json');
    const result = fromJson.safeParse(parseYaml(text));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('validates a manifest with actions, buttons alone and side by side', () => {
    const cards = readFileSync(
      path.join(REPO, 'test', 'fixtures', 'action-packs', 'cards', 'pack.yml'),
      'utf8',
    );
    expect(fromJson.safeParse(parseYaml(cards)).error?.issues ?? []).toEqual([]);
    const misspelt = { ...parseYaml(cards), actions: [{ id: 'a', reply: 'x', replies: 'y' }] };
    expect(fromJson.safeParse(misspelt).success).toBe(false);
  });

  it('accepts jobs_may_schedule: true', () => {
    const manifest = { ...parseYaml(manifestOf('vocab')), jobs_may_schedule: true };
    expect(fromJson.safeParse(manifest).error?.issues ?? []).toEqual([]);
  });

  it.each([
    ['an unknown tool', { tools: ['memory', 'shell'] }, ['tools', 1]],
    ['an unknown field', { toolz: ['memory'] }, []],
    ['a bad name', { name: 'My Pack' }, ['name']],
    ['a missing description', { description: undefined }, ['description']],
    [
      'a cron job without a skill',
      { cron: [{ id: 'x', schedule: '0 8 * * *' }] },
      ['cron', 0, 'skill'],
    ],
    [
      'a 3-field schedule',
      { cron: [{ id: 'x', schedule: '0 8 *', skill: 'review' }] },
      ['cron', 0, 'schedule'],
    ],
    ['a negative quota', { quota: { daily_usd: -1 } }, ['quota', 'daily_usd']],
    ['jobs_may_schedule not a boolean', { jobs_may_schedule: 'yes' }, ['jobs_may_schedule']],
  ])('rejects a manifest with %s', (_what, change, where) => {
    const broken = { ...parseYaml(manifestOf('vocab')), ...change };
    const result = fromJson.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path)).toContainEqual(where);
  });
});

describe('pack-test.schema.json', () => {
  const committedTests = JSON.parse(readFileSync(path.join(REPO, PACK_TEST_SCHEMA_FILE), 'utf8'));
  const testsFromJson = z.fromJSONSchema(committedTests);
  const testFiles = BUNDLED.flatMap((pack) =>
    readdirSync(path.join(REPO, 'packs', pack, 'tests')).map((f) => `${pack}/tests/${f}`),
  );

  it('is the schema generated from the zod test-file schema (run `npm run schema` if not)', () => {
    expect(committedTests).toEqual(packTestJsonSchema());
  });

  it.each(testFiles)('validates the bundled %s, which points editors at it', (file) => {
    const text = readFileSync(path.join(REPO, 'packs', file), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../../pack-test.schema.json');
    expect(testsFromJson.safeParse(parseYaml(text)).error?.issues ?? []).toEqual([]);
  });

  it("docs/PACKS.md's example test file is valid and shows every field the runner accepts", () => {
    const docs = readFileSync(path.join(REPO, 'docs', 'PACKS.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Testing a pack'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const parsed = parseYaml(example);
    expect(testsFromJson.safeParse(parsed).error?.issues ?? []).toEqual([]);
    const shown = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) {
          shown.add(key);
          walk(inner);
        }
    };
    walk(parsed);
    // Every property the schema names, at any depth (`properties` maps of the JSON Schema).
    const accepted = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object')
        for (const [key, inner] of Object.entries(node)) {
          if (key === 'properties' && inner && typeof inner === 'object')
            for (const name of Object.keys(inner)) accepted.add(name);
          collect(inner);
        }
    };
    collect(committedTests);
    expect(accepted).toContain('model_saw');
    expect([...accepted].filter((name) => !shown.has(name))).toEqual([]);
  });

  it('rejects a turn with an unknown expectation', () => {
    const file = { tests: [{ name: 'x', turns: [{ user: 'hi', expect: { replies: ['a'] } }] }] };
    expect(testsFromJson.safeParse(file).success).toBe(false);
  });
});
