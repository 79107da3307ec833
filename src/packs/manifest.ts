import { Cron } from 'croner';
import { z } from 'zod';

/** The core tools a pack may enable. */
export const CORE_TOOLS = [
  'memory',
  'skill_view',
  'db_query',
  'db_write',
  'send_message',
  'ask_user',
  'schedule',
] as const;
export type CoreTool = (typeof CORE_TOOLS)[number];

const slug = z.string().regex(/^[a-z][a-z0-9-]*$/, 'must match [a-z][a-z0-9-]*');

const cronExpression = z.string().refine(
  (expression) => {
    try {
      new Cron(expression, { paused: true });
      return expression.trim().split(/\s+/).length === 5;
    } catch {
      return false;
    }
  },
  { message: 'must be a 5-field cron expression, e.g. "0 8 * * *"' },
);

/** `pack.yml`. Unknown keys are rejected so a typo is an error, not a silent default. */
export const manifestSchema = z
  .object({
    name: slug.max(32, 'must be at most 32 characters'),
    version: z.string().regex(/^\d+\.\d+\.\d+([-+][\w.-]+)?$/, 'must be a version like 1.0.0'),
    display_name: z.string().trim().min(1).max(64),
    description: z.string().trim().min(1).max(300),
    skills: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, 'must match [a-z][a-z0-9_]*')).min(1),
    schema: z
      .object({ owned_tables: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]) })
      .strict()
      .default({ owned_tables: [] }),
    tools: z.array(z.enum(CORE_TOOLS)).default([]),
    cron: z
      .array(
        z
          .object({
            id: slug,
            schedule: cronExpression,
            skill: z.string(),
            enabled: z.boolean().default(true),
          })
          .strict(),
      )
      .default([]),
    quota: z
      .object({
        daily_tokens: z.number().int().nonnegative().optional(),
        daily_usd: z.number().nonnegative().optional(),
      })
      .strict()
      .optional(),
    model: z
      .string()
      .regex(/^((openai|gemini|groq):)?[\w.:/-]+$/, 'must be "model" or "provider:model"')
      .optional(),
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
    const ids = m.cron.map((job) => job.id);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i)
        ctx.addIssue({ code: 'custom', path: ['cron', i, 'id'], message: `duplicate id "${id}"` });
    });
  });

export type Manifest = z.infer<typeof manifestSchema>;

/** `skills/<name>/SKILL.md` frontmatter. */
export const skillFrontmatterSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'must match [a-z][a-z0-9_]{0,31}'),
    description: z.string().trim().min(1).max(256),
    command: z.boolean().default(false),
  })
  .strict();

/** A zod issue as "field: problem", the field written as a path like `cron[0].skill`. */
export function describeIssue(issue: z.core.$ZodIssue): { field: string; problem: string } {
  const field = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return { field: field || '(top level)', problem: issue.message };
}
