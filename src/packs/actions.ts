import { z } from 'zod';

/**
 * `actions:` in pack.yml (SPEC §3): buttons that run the pack's SQL and fill a logic-less
 * template, with no model call. The shape only; what needs the pack's database (SQL against
 * the schema, owned tables, template names) is checked by check-actions.ts.
 */

/** An action's id, and the action a button names. */
export const ACTION_ID = /^[a-z][a-z0-9_-]*$/;
/** A parameter's name, as the statements use it (`:card`). */
export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const actionId = z
  .string()
  .regex(ACTION_ID, 'must match [a-z][a-z0-9_-]*')
  .max(40, 'must be at most 40 characters');
const paramName = z.string().regex(PARAM_NAME, 'must match [A-Za-z_][A-Za-z0-9_]*').max(40);
const paramValue = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

/** A parameter's value as a statement binds it. */
export type ParamValue = z.infer<typeof paramValue>;
export type Params = Record<string, ParamValue>;

export const actionButtonSchema = z
  .object({
    label: z
      .string()
      .min(1)
      .max(64)
      .describe('What the button says: a template filled like `reply`, shown as plain text.'),
    action: actionId.describe("The action a press runs: the id of one of this pack's actions."),
    params: z
      .record(paramName, paramValue)
      .default({})
      .describe(
        'The parameters that action gets, one for each name in its `params`. A string is a template filled like `reply`; "{{id}}" alone keeps the value as it is (a number stays a number).',
      ),
    if: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, 'must name a value, like `id` or `card.id`')
      .optional()
      .describe(
        'Shown only when this value is set and not empty, 0 or false (as a Mustache section is): e.g. `id` of the next card.',
      ),
    each: z
      .literal('rows')
      .optional()
      .describe(
        '`rows`: the button is repeated for each row of `query`, filled from that row (one button per habit, say). On its own it makes a line per row; inside a line, it repeats within it.',
      ),
  })
  .strict();

export type ActionButtonSpec = z.infer<typeof actionButtonSchema>;

const statement = z.string().trim().min(1).max(10_000);

export const actionSchema = z
  .object({
    id: actionId.describe('Unique within the pack; the buttons name it.'),
    params: z
      .array(paramName)
      .max(20)
      .default([])
      .describe(
        'The names of the parameters every button that runs this action gives, as the statements use them (`:card`).',
      ),
    sql: z
      .union([statement, z.array(statement).min(1).max(20)])
      .optional()
      .describe(
        "One statement, or a list run in order, all in one transaction on the pack's database: writes only to `schema.owned_tables`, named parameters (`:card`) from the pressed button. A statement with RETURNING (or a SELECT) gives its first row to the template.",
      ),
    query: statement
      .optional()
      .describe(
        'A read after the statements, in the same transaction: its first row fills the template, and all its rows are `rows` (`{{#rows}}…{{/rows}}`).',
      ),
    reply: z
      .string()
      .min(1)
      .max(4000)
      .describe(
        "What the message shows after the press: a Mustache template (Markdown around it) filled from the parameters, the statements' row, the query's first row, `rows` and `changes` (rows changed). `{{value}}` is shown as written, Markdown characters in it included; `{{{value}}}` is taken as Markdown.",
      ),
    buttons: z
      .array(z.union([actionButtonSchema, z.array(actionButtonSchema).min(1).max(8)]))
      .max(20)
      .default([])
      .describe(
        'The keyboard under the reply, a line per entry: a button, or a list of buttons side by side. Each names the next action and its parameters.',
      ),
    message: z
      .enum(['edit', 'new'])
      .default('edit')
      .describe(
        '`edit` (the default): the reply replaces the pressed message and its keyboard; `new`: it is sent as a new message, and the pressed keyboard stays.',
      ),
    // biome-ignore lint/suspicious/noThenProperty: SPEC §3 names the field; its value is a string, never a function, so no action is a thenable.
    then: z
      .literal('ask')
      .optional()
      .describe(
        '`ask`: after the reply, the model takes over with `prompt`, told which button was pressed and what the reply showed (for when words are needed).',
      ),
    prompt: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .describe('With `then: ask`: what the model is asked, a template filled like `reply`.'),
  })
  .strict();

export type ActionSpec = z.infer<typeof actionSchema>;

/** Each entry of a manifest's `actions` that parses on its own, by its place (for a manifest that did not). */
export const actionsThatParse = (raw: unknown): (ActionSpec | undefined)[] =>
  (Array.isArray(raw) ? raw : []).map((entry) => actionSchema.safeParse(entry).data);

/** An action's statements, as a list. */
export const statementsOf = (action: Pick<ActionSpec, 'sql'>): string[] =>
  action.sql === undefined ? [] : typeof action.sql === 'string' ? [action.sql] : action.sql;

/** An action's keyboard, a line per entry. */
export const buttonLines = (action: Pick<ActionSpec, 'buttons'>): ActionButtonSpec[][] =>
  action.buttons.map((entry) => (Array.isArray(entry) ? entry : [entry]));

type Issues = z.core.$RefinementCtx;

/**
 * What the manifest alone says is wrong with its actions: a duplicate id, a button naming no
 * action or giving parameters its action does not take (or missing one), `then: ask` without
 * a `prompt` or a `prompt` without it.
 */
export function checkActionEntries(actions: readonly ActionSpec[], ctx: Issues): void {
  const byId = new Map(actions.map((a) => [a.id, a]));
  actions.forEach((action, i) => {
    const at = (...path: (string | number)[]) => ['actions', i, ...path];
    if (actions.findIndex((a) => a.id === action.id) !== i)
      ctx.addIssue({ code: 'custom', path: at('id'), message: `duplicate id "${action.id}"` });
    action.params.forEach((name, p) => {
      if (action.params.indexOf(name) !== p)
        ctx.addIssue({ code: 'custom', path: at('params', p), message: `duplicate "${name}"` });
    });
    if (action.then === 'ask' && action.prompt === undefined)
      ctx.addIssue({
        code: 'custom',
        path: at('prompt'),
        message: 'is required with `then: ask`: it is what the model is asked',
      });
    if (action.prompt !== undefined && action.then !== 'ask')
      ctx.addIssue({
        code: 'custom',
        path: at('prompt'),
        message: 'is read only with `then: ask`; add it, or remove the prompt',
      });
    action.buttons.forEach((entry, b) => {
      const line = Array.isArray(entry) ? entry : [entry];
      line.forEach((button, n) => {
        const path = Array.isArray(entry) ? at('buttons', b, n) : at('buttons', b);
        for (const message of buttonProblems(button, byId))
          ctx.addIssue({ code: 'custom', path: [...path, ...message.path], message: message.text });
      });
    });
  });
}

/** What is wrong with a button given the pack's actions (also for `send_message`'s buttons). */
export function buttonProblems(
  button: { action: string; params?: Record<string, unknown> },
  actions: ReadonlyMap<string, Pick<ActionSpec, 'id' | 'params'>>,
): { path: string[]; text: string }[] {
  const target = actions.get(button.action);
  if (!target) {
    const known = [...actions.keys()];
    return [
      {
        path: ['action'],
        text: `"${button.action}" is not one of this pack's actions${known.length ? ` (${known.join(', ')})` : ''}`,
      },
    ];
  }
  const given = Object.keys(button.params ?? {});
  const missing = target.params.filter((name) => !given.includes(name));
  const extra = given.filter((name) => !target.params.includes(name));
  return [
    ...missing.map((name) => ({
      path: ['params'],
      text: `misses "${name}", a parameter of action "${target.id}"`,
    })),
    ...extra.map((name) => ({
      path: ['params', name],
      text: `"${name}" is not a parameter of action "${target.id}" (its params: ${target.params.join(', ') || 'none'})`,
    })),
  ];
}
