import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.ts';
import { packListCommand } from '../../src/cli/pack-list.ts';
import { packNewCommand } from '../../src/cli/pack-new.ts';
import { inspectPack, loadPack } from '../../src/packs/loader.ts';
import { formatProblem } from '../../src/packs/problems.ts';
import { validatePack, validationReport } from '../../src/packs/validate.ts';
import { recordingIo } from '../support/cli-io.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const temp = tempDirs('satchel-authoring-');
const tempInRepo = tempDirs('.authoring-', REPO);

/**
 * `satchel pack new` run in `cwd` with SATCHEL_PACKS=`packs`, creating the pack there
 * (`--dir packs`) unless the arguments name another folder.
 */
async function packNew(cwd: string, packs: string, ...args: string[]) {
  const io = recordingIo({ SATCHEL_PACKS: packs }, cwd);
  const dir = args.includes('--dir') || args.length === 0 ? [] : ['--dir', packs];
  const code = await packNewCommand.run([...args, ...dir], io);
  return { code, out: io.out(), err: io.err() };
}

/** A new working directory with the pack `demo` made in ./packs by `satchel pack new`. */
async function demoPack() {
  const cwd = temp();
  await packNew(cwd, './packs', 'demo');
  return { cwd, dir: path.join(cwd, 'packs', 'demo') };
}

describe('satchel pack new', () => {
  it('creates a skeleton that validates, with a command skill, a table and templates', async () => {
    const cwd = temp();
    const run = await packNew(cwd, './my-packs', 'demo');
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain(`Created pack "demo" in ${path.join('my-packs', 'demo')}`);
    // `satchel` is not on PATH in a clone: every next step is spelled with npx.
    expect(run.out).toContain(`  npx satchel pack validate ${path.join('my-packs', 'demo')}\n`);
    expect(run.out).toContain(`  SATCHEL_PACKS=my-packs npx satchel chat --pack demo\n`);
    expect(run.out).not.toMatch(/^ {2}satchel /m);

    const dir = path.join(cwd, 'my-packs', 'demo');
    for (const file of [
      'pack.yml',
      'SOUL.md',
      'skills/notes/SKILL.md',
      'schema.sql',
      'migrations/README.md',
      'templates/USER.md',
      'templates/MEMORY.md',
    ])
      expect(existsSync(path.join(dir, file)), file).toBe(true);

    const report = validationReport(validatePack(dir));
    expect(report).toMatchObject({ ok: true });
    expect(report.text).toContain('ok: demo 0.1.0 (Demo)');
    expect(report.text).toContain('skills: /notes');
    expect(report.text).toContain('owned tables: notes');
    const pack = loadPack(dir);
    expect(pack.skills[0]).toMatchObject({ name: 'notes', command: true, commandName: 'notes' });
    expect(pack.templates.user).toContain('# About the user');
  });

  it('points the manifest at the JSON Schema: relative inside the repository, a file URL outside', async () => {
    const inside = tempInRepo();
    await packNew(inside, './packs', 'near');
    const near = readFileSync(path.join(inside, 'packs', 'near', 'pack.yml'), 'utf8');
    const [, relative] = /^# yaml-language-server: \$schema=(\S+)\n/.exec(near) ?? [];
    expect(relative).toBe('../../../packs/pack.schema.json');
    expect(existsSync(path.resolve(inside, 'packs', 'near', relative!))).toBe(true);

    const outside = temp();
    await packNew(outside, './packs', 'far');
    const far = readFileSync(path.join(outside, 'packs', 'far', 'pack.yml'), 'utf8');
    const [, url] = /^# yaml-language-server: \$schema=(\S+)\n/.exec(far) ?? [];
    expect(existsSync(fileURLToPath(url!))).toBe(true);
  });

  it('creates in ./NAME by default, not in SATCHEL_PACKS, and says how to try and install it', async () => {
    const cwd = temp();
    const io = recordingIo({ SATCHEL_PACKS: './packs' }, cwd);
    expect(await packNewCommand.run(['garden-log'], io)).toBe(0);
    expect(loadPack(path.join(cwd, 'garden-log')).displayName).toBe('Garden Log');
    // A running bot loads ./packs: a half-made pack there would be in every chat's picker.
    expect(existsSync(path.join(cwd, 'packs'))).toBe(false);
    expect(io.out()).toContain(
      'Created pack "garden-log" in garden-log (a running satchel does not load it)',
    );
    expect(io.out()).toContain('  npx satchel pack add ./garden-log --yes');
    expect(io.out()).toContain('  npx satchel chat --pack garden-log\n');
  });

  it('creates in --dir, and warns when that folder is one satchel loads', async () => {
    const cwd = temp();
    const run = await packNew(cwd, './packs', 'garden-log', '--dir', 'elsewhere');
    expect(run.code).toBe(0);
    expect(loadPack(path.join(cwd, 'elsewhere', 'garden-log')).displayName).toBe('Garden Log');
    expect(run.out).toContain('  SATCHEL_PACKS=elsewhere npx satchel chat --pack garden-log\n');
    expect(run.out).not.toContain('Note:');
    const loaded = await packNew(cwd, './packs', 'other');
    expect(loaded.out).toContain(
      `Note: satchel loads packs from ${path.join(cwd, 'packs')}, so a running bot offers "other" in every chat now.`,
    );
  });

  it('refuses bad arguments (exit 2) and an existing folder (exit 1), writing nothing', async () => {
    const cwd = temp();
    for (const name of ['Demo', '1demo', 'my_pack', 'a'.repeat(33)])
      await expect(packNew(cwd, './packs', name), name).rejects.toThrow(
        new UsageError(
          `the pack name "${name}" ${name.length > 32 ? 'must be at most 32 characters' : 'must match [a-z][a-z0-9-]* (lowercase letters, digits and -, starting with a letter)'}`,
        ),
      );
    await expect(packNew(cwd, './packs')).rejects.toThrow('needs the name of the pack');
    await expect(packNew(cwd, './packs', 'demo', '--bogus')).rejects.toThrow(UsageError);
    await expect(packNew(cwd, './packs', 'demo', 'extra')).rejects.toThrow(
      'unexpected argument "extra"',
    );
    expect(existsSync(path.join(cwd, 'packs'))).toBe(false);

    mkdirSync(path.join(cwd, 'packs', 'demo'), { recursive: true });
    writeFileSync(path.join(cwd, 'packs', 'demo', 'mine.txt'), 'keep me');
    const run = await packNew(cwd, './packs', 'demo');
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `${path.join(cwd, 'packs', 'demo')} already exists; choose another name or remove it first.\n`,
    );
    expect(existsSync(path.join(cwd, 'packs', 'demo', 'pack.yml'))).toBe(false);
  });
});

describe('satchel pack list', () => {
  it('lists name, version, display name and skills, and the broken packs with their problems', async () => {
    const { cwd } = await demoPack();
    await packNew(cwd, './packs', 'broken');
    const manifest = path.join(cwd, 'packs', 'broken', 'pack.yml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('tools: [memory,', 'tools: [shell, memory,'),
    );
    const io = recordingIo({ SATCHEL_PACKS: `./packs,${path.join(REPO, 'packs')}` }, cwd);
    expect(await packListCommand.run([], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('  demo  0.1.0  Demo\n    skills: /notes\n');
    expect(out).toContain('  vocab  1.1.0  Vocabulary Trainer\n    skills: /add_words, /review');
    expect(out).toMatch(
      / {2}broken {2}BROKEN\n {4}`pack\.yml` line \d+: `tools\[0\]` — unknown tool `shell` .+\n/,
    );
    expect(out).toContain('5 pack(s) load, 1 broken');
  });
});

describe('pack validate reports every problem', () => {
  it('lists the problems of the manifest, the skills and the schema together, with YAML lines', async () => {
    const { dir } = await demoPack();
    writeFileSync(
      path.join(dir, 'pack.yml'),
      [
        'name: demo', // 1
        'version: one', // 2
        'display_name: Demo', // 3
        'description: Notes.', // 4
        'skills: [notes, missing]', // 5
        'schema:', // 6
        '  owned_tables: [notes, ghosts]', // 7
        'tools: [memory, shell]', // 8
        'toolz: [memory]', // 9
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'skills', 'notes', 'SKILL.md'),
      '---\nname: notes\ncommand: yes please\n---\nbody\n',
    );
    const { pack, problems } = inspectPack(dir);
    expect(pack).toBeUndefined();
    const lines = problems.map((p) => formatProblem({ ...p, file: path.relative(dir, p.file) }));
    expect(lines).toEqual(
      expect.arrayContaining([
        '`pack.yml` line 2: `version` — must be a version like 1.0.0 (or 1.0.0-rc.1, 1.0.0+build.5)',
        expect.stringMatching(
          /^`pack\.yml` line 8: `tools\[1\]` — unknown tool `shell` \(one of: memory, .+\)$/,
        ),
        expect.stringMatching(
          /^`pack\.yml` line 9: `toolz` — unknown field \(did you mean `tools`\?\); pack.yml has: name, version, .+$/,
        ),
        '`skills/notes/SKILL.md` line 2: `description` — is required',
        expect.stringMatching(/^`skills\/notes\/SKILL\.md` line 3: `command` — .+$/),
        '`skills/missing/SKILL.md`: (file) — skill "missing" has no SKILL.md',
        '`pack.yml` line 7: `schema.owned_tables` — ghosts not created by schema.sql',
      ]),
    );
    expect(lines).toHaveLength(7);

    const report = validationReport(validatePack(dir));
    expect(report.ok).toBe(false);
    expect(report.text).toMatch(/^invalid pack \(7 problems\):\n/);
  });

  it('checks jobs_may_schedule: it needs the schedule tool, and the report shows it', async () => {
    const { dir } = await demoPack();
    const manifest = path.join(dir, 'pack.yml');
    const scaffolded = readFileSync(manifest, 'utf8');
    expect(validationReport(validatePack(dir)).text).toContain('  schedules: none\n');

    writeFileSync(
      manifest,
      scaffolded.replace('# jobs_may_schedule: true', 'jobs_may_schedule: true'),
    );
    const allowed = validationReport(validatePack(dir));
    expect(allowed.ok).toBe(true);
    expect(allowed.text).toContain('  schedules: none; jobs may create jobs\n');

    writeFileSync(
      manifest,
      scaffolded
        .replace(/^tools: .*$/m, 'tools: [memory, skill_view]')
        .replace('# jobs_may_schedule: true', 'jobs_may_schedule: true'),
    );
    const line = scaffolded.split('\n').indexOf('# jobs_may_schedule: true') + 1;
    expect(inspectPack(dir).problems.map(formatProblem)).toEqual([
      `\`${manifest}\` line ${line}: \`jobs_may_schedule\` — needs the \`schedule\` tool in \`tools\`: without it no run can create jobs`,
    ]);
  });

  it('shows the line of every YAML syntax error, in pack.yml and in SKILL.md frontmatter', async () => {
    const { cwd, dir } = await demoPack();
    writeFileSync(
      path.join(dir, 'pack.yml'),
      'name: demo\nversion: 1.0.0\nname: again\nskills: [notes\n',
    );
    const manifest = inspectPack(dir).problems.map(formatProblem);
    expect(manifest).toEqual([
      `\`${path.join(dir, 'pack.yml')}\` line 3: (yaml) — Map keys must be unique`,
      expect.stringMatching(/ line 5: \(yaml\) — Flow sequence .+$/),
    ]);

    await packNew(cwd, './packs', 'other');
    const other = path.join(cwd, 'packs', 'other');
    writeFileSync(
      path.join(other, 'skills', 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: [unclosed\ncommand: true\n---\nbody\n',
    );
    expect(inspectPack(other).problems.map((p) => [p.field, p.line])).toEqual([
      ['(frontmatter)', 4],
    ]);
  });
});

describe('pack validate says what is wrong, for people, in one round', () => {
  it('a typo with its likely fix, the cron parser’s reason, an unknown provider and a duplicate key, together', async () => {
    const { dir } = await demoPack();
    writeFileSync(
      path.join(dir, 'pack.yml'),
      [
        'name: demo', // 1
        'version: 1.0.0', // 2
        'display_name: Demo', // 3
        'description: Notes.', // 4
        'skills: [notes]', // 5
        'tools: [memory, skill_view, db_qurey]', // 6
        'model: opnai:gpt-4.1', // 7
        'cron:', // 8
        '  - id: daily', // 9
        '    schedule: "0 25 * * *"', // 10
        '    skill: notes', // 11
        'description: Notes again.', // 12
        '',
      ].join('\n'),
    );
    const report = validationReport(validatePack(dir, undefined, {}));
    expect(report.ok).toBe(false);
    expect(report.text).toBe(
      [
        'invalid pack (4 problems):',
        '`pack.yml` line 6: `tools[2]` — unknown tool `db_qurey` (did you mean `db_query`?)',
        '`pack.yml` line 7: `model` — unknown provider `opnai` (did you mean `openai`?): use one of openai, gemini, groq, as "provider:model"',
        '`pack.yml` line 10: `cron[0].schedule` — invalid cron expression: Invalid value for hour: 25',
        '`pack.yml` line 12: (yaml) — Map keys must be unique',
      ].join('\n'),
    );
    // On a self-hosted compatible server a colon is part of a model's name (`llava:13b`).
    const local = validatePack(dir, undefined, { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(local.problems.map((p) => p.field)).not.toContain('model');
  });

  it("checks a cron entry's own model like the pack's", async () => {
    const { dir } = await demoPack();
    const cron = (model: string) =>
      writeFileSync(
        path.join(dir, 'pack.yml'),
        [
          'name: demo',
          'version: 1.0.0',
          'display_name: Demo',
          'description: Notes.',
          'skills: [notes]',
          'cron:',
          '  - id: daily',
          '    schedule: "0 8 * * *"',
          '    skill: notes',
          `    model: ${model}`,
          '',
        ].join('\n'),
      );
    cron('grok:mini');
    expect(validationReport(validatePack(dir, undefined, {})).text).toBe(
      [
        'invalid pack (1 problem):',
        '`pack.yml` line 10: `cron[0].model` — unknown provider `grok` (did you mean `groq`?): use one of openai, gemini, groq, as "provider:model"',
      ].join('\n'),
    );
    cron('"gpt 4"');
    expect(validatePack(dir, undefined, {}).problems).toMatchObject([
      { field: 'cron[0].model', problem: 'must be "model" or "provider:model"' },
    ]);
    cron('groq:llama-3.1-8b-instant');
    expect(validatePack(dir, undefined, {}).pack?.manifest.cron[0]?.model).toBe(
      'groq:llama-3.1-8b-instant',
    );
  });
});
