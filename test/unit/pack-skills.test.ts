import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectPack, loadPack, type Pack } from '../../src/packs/loader.ts';
import { packPromptSections } from '../../src/packs/prompt.ts';
import { RESERVED_COMMANDS } from '../../src/packs/skill-command.ts';
import type { PackStorage } from '../../src/packs/storage.ts';
import { CORE_COMMANDS, type CommandDeps, createCommands } from '../../src/turn/commands.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-skills-');

/** A copy of the alpha fixture with `skills` added (folder name → SKILL.md text). */
function alphaWith(skills: Record<string, string>): string {
  const dir = path.join(tempDir(), 'alpha');
  cpSync(path.join(FIXTURE_PACKS, 'alpha'), dir, { recursive: true });
  for (const [name, text] of Object.entries(skills)) {
    mkdirSync(path.join(dir, 'skills', name), { recursive: true });
    writeFileSync(path.join(dir, 'skills', name, 'SKILL.md'), text);
  }
  const manifest = path.join(dir, 'pack.yml');
  const list = ['alpha_one', 'alpha_two', ...Object.keys(skills)].join(', ');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8').replace('skills: [alpha_one, alpha_two]', `skills: [${list}]`),
  );
  return dir;
}

const AGENT_SKILL = `---
name: pdf-summary
description: Summarize a PDF the user sends, section by section.
license: Apache-2.0
compatibility: Needs nothing but the model.
metadata:
  author: someone
  version: "1.2"
allowed-tools: skill_view memory
x-vendor-flag: true
command: true
---
Read the document and summarize it.
`;

describe('standard (Agent Skills) frontmatter', () => {
  it('loads license, metadata, allowed-tools and unknown keys, and keeps them', () => {
    const pack = loadPack(alphaWith({ 'pdf-summary': AGENT_SKILL }));
    const skill = pack.skills.find((s) => s.name === 'pdf-summary')!;
    expect(skill).toMatchObject({
      name: 'pdf-summary',
      command: true,
      commandName: 'pdf_summary',
      body: 'Read the document and summarize it.',
    });
    expect(skill.frontmatter).toMatchObject({
      license: 'Apache-2.0',
      compatibility: 'Needs nothing but the model.',
      metadata: { author: 'someone', version: '1.2' },
      'allowed-tools': 'skill_view memory',
      'x-vendor-flag': true,
    });
  });

  it('a skill without `command` is not a command', () => {
    const text = '---\nname: plain-skill\ndescription: Just instructions.\n---\nDo it.\n';
    const skill = loadPack(alphaWith({ 'plain-skill': text })).skills.at(-1)!;
    expect(skill).toMatchObject({ command: false, commandName: 'plain_skill' });
  });
});

describe('hyphenated skill names and their commands', () => {
  const pack = (): Pack => loadPack(alphaWith({ 'pdf-summary': AGENT_SKILL }));

  /** The command handler over one pack, with the stubs it reads for skill commands. */
  function commandsFor(p: Pack) {
    const deps = {
      conversing: {
        packs: { list: () => [p], get: (name: string) => (name === p.name ? p : undefined) },
        router: { activePack: () => p.name },
      },
      runtime: {},
      reports: {},
    } as unknown as CommandDeps;
    return createCommands(deps);
  }
  const event = (command: string, args = '') =>
    ({
      kind: 'command',
      command,
      args,
      address: { platform: 'tg', chatId: '1', threadId: null },
    }) as unknown as Parameters<ReturnType<typeof createCommands>['run']>[0];

  it('/pdf_summary is in the menu and dispatches to the pdf-summary skill', async () => {
    const p = pack();
    const commands = commandsFor(p);
    expect(commands.menu()).toContainEqual({
      command: 'pdf_summary',
      description: 'Summarize a PDF the user sends, section by section.',
    });
    expect(commands.menu().map((m) => m.command)).not.toContain('pdf-summary');
    const outcome = await commands.run(
      event('pdf_summary', 'the report'),
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({
      turn: { pack: 'alpha', text: 'the report', pinned: { name: 'pdf-summary' } },
    });
  });

  it('the skill index in the prompt shows the command as it is typed', () => {
    const storage = { readNote: () => '' } as unknown as PackStorage;
    const index = packPromptSections(pack(), storage).find((s) => s.startsWith('# Skills'))!;
    expect(index).toContain('- pdf-summary (/pdf_summary): Summarize a PDF');
  });

  it('explains why a name cannot be a command, only when command is true', () => {
    const long = 'summarize-the-whole-document-carefully'; // 38 characters
    const text = (command: boolean) =>
      `---\nname: ${long}\ndescription: Long.\ncommand: ${command}\n---\nbody\n`;
    const problems = inspectPack(alphaWith({ [long]: text(true) })).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ field: 'command', line: 4 });
    expect(problems[0]!.problem).toBe(
      'with command: true this skill becomes the Telegram command /summarize_the_whole_document_carefully, but a command must be 1–32 characters of a-z, 0-9 and _ (this one is 38); shorten the skill name or set command: false',
    );
    expect(inspectPack(alphaWith({ [long]: text(false) })).problems).toEqual([]);
  });

  it('refuses a skill command that a core command would hide, and two skills with one command', () => {
    const help = '---\nname: help\ndescription: Help.\ncommand: true\n---\nbody\n';
    expect(inspectPack(alphaWith({ help })).problems[0]?.problem).toContain(
      "/help, which is one of satchel's own commands",
    );
    const twin = (name: string) =>
      `---\nname: ${name}\ndescription: Twin.\ncommand: true\n---\nb\n`;
    const problems = inspectPack(
      alphaWith({ 'my-skill': twin('my-skill'), my_skill: twin('my_skill') }),
    ).problems;
    expect(problems.map((p) => p.problem)).toEqual([
      '/my_skill is also the command of skill "my-skill" (- becomes _ in commands); rename one or set command: false',
    ]);
  });

  it('the reserved names are exactly the core commands', () => {
    expect([...RESERVED_COMMANDS].sort()).toEqual(Object.keys(CORE_COMMANDS).sort());
  });
});
