import { Cron } from 'croner';
import { z } from 'zod';
import { ACTION_ID, actionSchema, checkActionEntries } from './actions.ts';
import { checkMcpEntries, mcpServerSchema } from './manifest-mcp.ts';
import { VERSION } from './semver.ts';
import { didYouMean } from './suggest.ts';

/** The core tools a pack may enable. */
export const CORE_TOOLS = [
  'memory',
  'skill_view',
  'db_query',
  'db_write',
  'send_message',
  'ask_user',
  'schedule',
  'web_fetch',
  'web_search',
  'memory_search',
] as const;
export type CoreTool = (typeof CORE_TOOLS)[number];

const slug = z.string().regex(/^[a-z][a-z0-9-]*$/, 'must match [a-z][a-z0-9-]*');

/**
 * A chat model, "model" or "provider:model". The provider is read where the model is made
 * (providers/model-ref.ts), so this pattern need not list the providers; `pack validate`
 * refuses an unknown one (validate.ts).
 */
const modelRef = z.string().regex(/^[\w.:/-]+$/, 'must be "model" or "provider:model"');

/**
 * A skill's name: lowercase letters, digits, `-` and `_`, starting with a letter. Agent
 * Skills names use `-` (`my-skill`); satchel's own packs use `_`. Both work.
 */
export const SKILL_NAME = /^[a-z][a-z0-9_-]*$/;
const skillName = z
  .string()
  .regex(SKILL_NAME, 'must match [a-z][a-z0-9_-]* (lowercase letters, digits, - and _)')
  .max(64, 'must be at most 64 characters');

const FIVE_CRON_FIELDS = 'must be a 5-field cron expression, e.g. "0 8 * * *"';
const cronExpression = z
  .string()
  .regex(/^\s*\S+(\s+\S+){4}\s*$/, { message: FIVE_CRON_FIELDS, abort: true })
  .superRefine((expression, ctx) => {
    const reason = cronProblem(expression);
    // The parser's own reason ("... out of range"), so the author sees which field is wrong.
    if (reason) ctx.addIssue({ code: 'custom', message: `invalid cron expression: ${reason}` });
  });

/** Why croner refuses `expression`, or undefined when it takes it. */
export function cronProblem(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  }
}

/**
 * `pack.yml`. Unknown keys are rejected so a typo is an error, not a silent default. The
 * descriptions end up in `packs/pack.schema.json` (`npm run schema`), which editors show.
 */
export const manifestSchema = z
  .object({
    name: slug
      .max(32, 'must be at most 32 characters')
      .describe("The pack's id: [a-z][a-z0-9-]*, at most 32 characters, equal to its folder name."),
    version: z
      .string()
      .regex(VERSION, 'must be a version like 1.0.0 (or 1.0.0-rc.1, 1.0.0+build.5)')
      .describe('The pack version, like 1.0.0.'),
    display_name: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .describe('The name users see (pack picker, topics, /help).'),
    description: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .describe('One or two sentences on what the pack does; shown in the picker and the prompt.'),
    skills: z
      .array(skillName)
      .min(1)
      .describe('The skill folders under skills/, each with a SKILL.md; at least one.'),
    schema: z
      .object({
        owned_tables: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
          .default([])
          .describe('Tables db_write may change; each must exist after schema.sql and migrations.'),
      })
      .strict()
      .default({ owned_tables: [] })
      .describe("The pack's own database."),
    tools: z
      .array(z.enum(CORE_TOOLS))
      .default([])
      .describe('The core tools this pack enables; the model gets only these.'),
    cron: z
      .array(
        z
          .object({
            id: slug.describe('Unique within the pack.'),
            schedule: cronExpression.describe(
              'A 5-field cron expression read in SATCHEL_TIMEZONE, e.g. "0 8 * * *".',
            ),
            skill: z.string().describe('The skill the job runs (one of `skills`).'),
            enabled: z.boolean().default(true).describe('false: created paused.'),
            model: modelRef
              .optional()
              .describe(
                'Run this job with its own chat model ("provider:model"), e.g. a cheaper one for checks.',
              ),
          })
          .strict(),
      )
      .default([])
      .describe('Jobs delivered to every chat and topic bound to this pack.'),
    send_files: z
      .boolean()
      .default(true)
      .describe(
        'false: send_message sends text, keyboards and chat actions only, never a photo, audio, voice or document, so it cannot carry data out: the pack has no external tool, and reading the web is no risk (doctor --security, pack add).',
      ),
    jobs_may_schedule: z
      .boolean()
      .default(false)
      .describe(
        "true: a scheduled job's own run may create jobs with the schedule tool (still at most MAX_JOBS per chat, one-shots at least a minute ahead). Off by default, so jobs cannot create jobs that create jobs.",
      ),
    quota: z
      .object({
        daily_tokens: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('Tokens this pack may use per day, all chats together.'),
        daily_usd: z
          .number()
          .nonnegative()
          .optional()
          .describe('US dollars this pack may spend per day, all chats together.'),
      })
      .strict()
      .optional()
      .describe("Caps of this pack's own, on top of the global caps."),
    settings: z
      .array(
        z
          .object({
            name: z
              .string()
              .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must match [A-Za-z][A-Za-z0-9_-]*')
              .max(48)
              .describe('Read from SATCHEL_PACK_<PACK>_<NAME> (upper case, - as _).'),
            description: z.string().trim().min(1).max(300).describe('What to set it to.'),
            secret: z
              .boolean()
              .default(false)
              .describe('true: kept out of logs, the model, the database and backups.'),
            required: z
              .boolean()
              .default(false)
              .describe('true: the pack is skipped while the variable is unset.'),
          })
          .strict(),
      )
      .default([])
      .describe('Values the operator sets in the environment as SATCHEL_PACK_<PACK>_<NAME>.'),
    mcp: z
      .array(mcpServerSchema)
      .default([])
      .describe(
        'MCP servers whose tools this pack\'s turns get, named <name>__<tool> (docs/PACKS.md, "MCP servers").',
      ),
    model: modelRef
      .optional()
      .describe('Answer this pack\'s turns with another model: "model" or "provider:model".'),
    actions: z
      .array(actionSchema)
      .max(100)
      .default([])
      .describe(
        'Buttons that run the pack\'s SQL and show a template, with no model call (docs/PACKS.md, "Actions"); a skill shows them with send_message.',
      ),
  })
  .strict()
  .superRefine((m, ctx) => {
    const skills = new Set(m.skills);
    m.cron.forEach((job, i) => {
      if (!skills.has(job.skill))
        ctx.addIssue({
          code: 'custom',
          path: ['cron', i, 'skill'],
          message: `"${job.skill}" is not one of this pack's skills`,
        });
    });
    if (m.jobs_may_schedule && !m.tools.includes('schedule'))
      ctx.addIssue({
        code: 'custom',
        path: ['jobs_may_schedule'],
        message: 'needs the `schedule` tool in `tools`: without it no run can create jobs',
      });
    const ids = m.cron.map((job) => job.id);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i)
        ctx.addIssue({ code: 'custom', path: ['cron', i, 'id'], message: `duplicate id "${id}"` });
    });
    // Two names that give the same SATCHEL_PACK_* variable (`api-token`, `API_TOKEN`) clash.
    const settingNames = m.settings.map((s) => s.name.toUpperCase().replaceAll('-', '_'));
    settingNames.forEach((name, i) => {
      if (settingNames.indexOf(name) !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['settings', i, 'name'],
          message: `duplicate setting "${m.settings[i]!.name}" (names are read in upper case, - as _)`,
        });
    });
    checkMcpEntries(m.mcp, m.settings, ctx);
    checkActionEntries(m.actions, ctx);
    m.skills.forEach((name, i) => {
      if (m.skills.indexOf(name) !== i)
        ctx.addIssue({ code: 'custom', path: ['skills', i], message: `duplicate skill "${name}"` });
    });
  })
  .meta({
    title: 'satchel pack manifest (pack.yml)',
    description: 'A satchel pack: see docs/PACKS.md.',
  });

export type Manifest = z.infer<typeof manifestSchema>;

/**
 * `skills/<name>/SKILL.md` frontmatter, in the Agent Skills shape (`name`, `description`,
 * and optional `license`, `compatibility`, `metadata`, `allowed-tools`) plus satchel's
 * `command` and `action`. Unknown keys are kept, not refused: a skill written for another
 * agent loads.
 */
export const skillFrontmatterSchema = z.looseObject({
  name: skillName,
  description: z.string().trim().min(1).max(1024),
  command: z.boolean().default(false),
  // The command opens an app-like flow at once: the pack action runs, no model call (SPEC §3).
  action: z.string().regex(ACTION_ID, 'must be an action id, [a-z][a-z0-9_-]*').optional(),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
});

export type SkillFrontmatter = z.infer<typeof skillFrontmatterSchema>;

/**
 * A zod issue as "field: problem", the field written as a path like `cron[0].skill`. Given the
 * `input` that was parsed, a missing field reads "is required" rather than zod's
 * "expected string, received undefined".
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  input?: unknown,
): { field: string; problem: string } {
  const value = input === undefined ? undefined : valueAt(input, issue.path);
  const field = fieldPath(issue.path);
  if (issue.code === 'invalid_type' && input !== undefined && value === undefined)
    return { field, problem: 'is required' };
  if (issue.code === 'invalid_value' && typeof value === 'string') {
    const options = issue.values.map(String);
    const noun = issue.path[0] === 'tools' ? 'tool' : 'value';
    const hint = didYouMean(value, options) || ` (one of: ${options.join(', ')})`;
    return { field, problem: `unknown ${noun} \`${value}\`${hint}` };
  }
  return { field, problem: issue.message };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A path as written in messages: `cron[0].skill`, or `(top level)` when empty. */
export function fieldPath(path: readonly PropertyKey[]): string {
  const field = path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return field || '(top level)';
}
