import { z } from 'zod';

/** The date tests run at when their file names none: a Monday morning, UTC. */
export const DEFAULT_NOW = '2026-01-05T09:00:00Z';

const instant = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)), 'must be a date and time (ISO 8601)')
  .describe('A date and time, ISO 8601 (2026-01-05T09:00:00Z)');

const toolStep = z
  .object({
    tool: z.string().min(1).describe('The tool the scripted model calls'),
    args: z.record(z.string(), z.unknown()).default({}).describe("The tool call's arguments"),
  })
  .strict();

const answerStep = z
  .object({ answer: z.string().describe("The scripted model's final answer") })
  .strict();

/** An expectation's list of strings, optional, with what it asks of them. */
const strings = (description: string) => z.array(z.string()).optional().describe(description);

const expectation = z
  .object({
    reply_contains: strings('Strings the reply the user sees must contain'),
    model_saw: strings(
      "Strings the model's requests in this turn contained (the [Sent: …] line, a skill's instructions)",
    ),
    tool_ok: strings('Tools called in this turn whose results were all not errors'),
    tool_error: strings('Tools called in this turn of which at least one result was an error'),
    db: z
      .object({
        sql: z.string().min(1).describe("A read-only query on the pack's database"),
        params: z
          .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
          .optional()
          .describe("Values for the query's ? placeholders, in order"),
        rows: z
          .array(z.record(z.string(), z.unknown()))
          .describe('The rows it must return, in order (column: value)'),
      })
      .strict()
      .optional(),
    jobs: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("The number of jobs the pack's tools scheduled (manifest cron jobs not counted)"),
    max_model_calls: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        "The most model calls this turn may make: the scripted model's requests in it (0 for a press that needs no words)",
      ),
  })
  .strict();

const steps = (description: string) =>
  z
    .array(z.union([toolStep, answerStep]))
    .default([])
    .describe(description);
const turnTime = instant.optional();

const userTurn = z
  .object({
    user: z.string().min(1).describe('The text the user sends'),
    now: turnTime.describe("When this turn's message is sent (default: a minute after the last)"),
    model: steps(
      "The scripted model's steps, in order: tool calls, then an answer (or up to an ask_user question, whose answer a press: turn gives)",
    ),
    expect: expectation.default({}).describe('What must hold after the turn'),
  })
  .strict();

const pressTurn = z
  .object({
    press: z
      .string()
      .min(1)
      .describe(
        'The label of a button on the last message with buttons (an ask_user choice, an action), pressed by the user',
      ),
    now: turnTime.describe('When the button is pressed (default: a minute after the last turn)'),
    model: steps(
      "The scripted model's steps after the press, in order (an ask_user's answer goes back to the turn that asked)",
    ),
    expect: expectation.default({}).describe('What must hold after the press'),
  })
  .strict();

/** A turn: a message the user sends, or a button the user presses. */
const turn = z.union([userTurn, pressTurn], {
  error:
    'a turn has either user (a message) or press (a button label), and may have now, model and expect',
});

/** A pack's `tests/*.yml` (SPEC §15): scripted conversations and what they must leave behind. */
export const testFileSchema = z
  .object({
    now: instant.default(DEFAULT_NOW).describe('When the tests run (a fake clock)'),
    timezone: z
      .string()
      .default('UTC')
      .describe(
        "The user's time zone (SATCHEL_TIMEZONE): of the Sent and Now lines and the date parameters",
      ),
    tests: z
      .array(
        z
          .object({
            name: z.string().min(1).describe('Shown as <file>: <name>'),
            turns: z.array(turn).min(1),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export type TestFile = z.output<typeof testFileSchema>;
export type PackTest = TestFile['tests'][number];
export type Turn = PackTest['turns'][number];
export type Expectation = Turn['expect'];
export type Step = Turn['model'][number];

/** Where the test files' schema is committed: `# yaml-language-server: $schema=../../pack-test.schema.json`. */
export const PACK_TEST_SCHEMA_FILE = 'packs/pack-test.schema.json';

/** The JSON Schema of a pack's `tests/*.yml` (SPEC §15), for editors, generated as pack.yml's is. */
export function packTestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(testFileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
}
