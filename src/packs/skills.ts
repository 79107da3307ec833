import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readYaml, type YamlSource } from '../core/yaml-source.ts';
import { describeIssue, skillFrontmatterSchema } from './manifest.ts';
import { readPackFile } from './pack-files.ts';
import type { PackProblem } from './problems.ts';
import { commandName, commandProblem } from './skill-command.ts';

export interface Skill {
  name: string;
  description: string;
  command: boolean;
  /** The Telegram command when `command` is true: the name with `-` as `_` (`/my_skill`). */
  commandName: string;
  /**
   * The pack action the command runs at once, with no model call (frontmatter `action`; an
   * action without params). The body still guides the model when it is asked in words.
   */
  action: string | undefined;
  /** The whole frontmatter, unknown keys (license, metadata, allowed-tools…) included. */
  frontmatter: Record<string, unknown>;
  /** The instructions (SKILL.md without its frontmatter). */
  body: string;
  /** Other files in the skill's folder, relative to it. */
  files: string[];
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * Reads `skills/<name>/SKILL.md`. Returns the skill, or every problem found in it (with the
 * line in SKILL.md where there is one); never throws for a bad file.
 */
export function loadSkill(
  packDir: string,
  name: string,
): { skill: Skill; problems: [] } | { skill: undefined; problems: PackProblem[] } {
  const dir = path.join(packDir, 'skills', name);
  const file = path.join(dir, 'SKILL.md');
  const failed = (problems: PackProblem[]) => ({ skill: undefined, problems });
  const outside: PackProblem[] = [];
  const text = readPackFile(packDir, file, outside);
  if (outside.length > 0) return failed(outside);
  if (text === undefined)
    return failed([{ file, field: '(file)', problem: `skill "${name}" has no SKILL.md` }]);
  const match = FRONTMATTER.exec(text);
  if (!match)
    return failed([
      { file, field: '(frontmatter)', problem: 'must start with a --- YAML frontmatter block' },
    ]);
  // The frontmatter's first line is line 2 of SKILL.md.
  const source = readYaml(match[1] ?? '', 1);
  if (source.errors.length > 0)
    return failed(
      source.errors.map((e) => ({
        file,
        field: '(frontmatter)',
        problem: e.message,
        line: e.line,
      })),
    );
  const parsed = skillFrontmatterSchema.safeParse(source.value ?? {});
  if (!parsed.success)
    return failed(
      parsed.error.issues.map((issue) => ({
        file,
        ...describeIssue(issue, source.value ?? {}),
        line: source.lineOf(issue.path),
      })),
    );
  const front = parsed.data;
  const problems = namingProblems(file, name, front, source);
  if (problems.length > 0) return failed(problems);
  return {
    skill: {
      name: front.name,
      description: front.description,
      command: front.command,
      commandName: commandName(front.name),
      action: front.action,
      frontmatter: front,
      body: (match[2] ?? '').trim(),
      files: readdirSync(dir).filter((f) => f !== 'SKILL.md'),
    },
    problems: [],
  };
}

function namingProblems(
  file: string,
  folder: string,
  front: { name: string; command: boolean; action?: string | undefined },
  source: YamlSource,
): PackProblem[] {
  const problems: PackProblem[] = [];
  if (front.name !== folder)
    problems.push({
      file,
      field: 'name',
      problem: `"${front.name}" must equal the folder name "${folder}"`,
      line: source.lineOf(['name']),
    });
  const unusable = front.command ? commandProblem(front.name) : undefined;
  if (unusable)
    problems.push({ file, field: 'command', problem: unusable, line: source.lineOf(['command']) });
  if (front.action !== undefined && !front.command)
    problems.push({
      file,
      field: 'action',
      problem: 'is the action the command runs: it needs command: true',
      line: source.lineOf(['action']),
    });
  return problems;
}
