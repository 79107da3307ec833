import { isDeepStrictEqual } from 'node:util';
import type { ScriptedCall } from './scripted-model.ts';
import type { Expectation } from './test-file.ts';

/** What a turn left behind, as the expectations read it. */
export interface TurnOutcome {
  /** The messages the user was sent in this turn, joined by newlines. */
  reply: string;
  calls: readonly ScriptedCall[];
  /** The text of each request the model got in this turn: one per model call. */
  seen: readonly string[];
  /** The newest user message of each of those requests. */
  newest: readonly string[];
  /** Runs a read-only query on the pack's database. */
  query(sql: string, params: readonly unknown[]): Record<string, unknown>[];
  /** The jobs the pack has scheduled. */
  jobs(): number;
}

const isError = (result: string | undefined) => result?.startsWith('Error:') === true;
const quote = (text: string, max = 300) =>
  JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** Every expectation of `expect` that does not hold, each with what was seen instead. */
export function unmet(expect: Expectation, outcome: TurnOutcome): string[] {
  const failures: string[] = [];
  for (const wanted of expect.reply_contains ?? [])
    if (!outcome.reply.includes(wanted))
      failures.push(`reply_contains ${quote(wanted)}: the reply was ${quote(outcome.reply)}`);
  for (const wanted of expect.model_saw ?? [])
    if (!outcome.seen.some((request) => request.includes(wanted)))
      failures.push(
        `model_saw ${quote(wanted)}: not in the model's requests; the last message was ${quote(outcome.newest[0] ?? '(the model was not called)')}`,
      );
  for (const tool of expect.tool_ok ?? []) {
    const calls = outcome.calls.filter((c) => c.tool === tool);
    const failed = calls.find((c) => isError(c.result));
    if (calls.length === 0) failures.push(`tool_ok ${tool}: ${tool} was not called`);
    else if (failed) failures.push(`tool_ok ${tool}: it returned ${quote(failed.result ?? '')}`);
  }
  for (const tool of expect.tool_error ?? []) {
    const calls = outcome.calls.filter((c) => c.tool === tool);
    if (calls.length === 0) failures.push(`tool_error ${tool}: ${tool} was not called`);
    else if (!calls.some((c) => isError(c.result)))
      failures.push(`tool_error ${tool}: no error; it returned ${quote(calls[0]?.result ?? '')}`);
  }
  if (expect.db) failures.push(...dbUnmet(expect.db, outcome));
  if (expect.jobs !== undefined) {
    const jobs = outcome.jobs();
    if (jobs !== expect.jobs) failures.push(`jobs: expected ${expect.jobs}, found ${jobs}`);
  }
  const calls = outcome.seen.length;
  if (expect.max_model_calls !== undefined && calls > expect.max_model_calls)
    failures.push(
      `max_model_calls ${expect.max_model_calls}: the turn made ${calls} model call${calls === 1 ? '' : 's'}`,
    );
  return failures;
}

function dbUnmet(db: NonNullable<Expectation['db']>, outcome: TurnOutcome): string[] {
  let rows: Record<string, unknown>[];
  try {
    rows = outcome.query(db.sql, db.params ?? []);
  } catch (error) {
    return [`db ${quote(db.sql, 80)}: the query failed: ${(error as Error).message}`];
  }
  if (isDeepStrictEqual(rows, db.rows)) return [];
  return [
    `db ${quote(db.sql, 80)}: expected ${JSON.stringify(db.rows)}, got ${JSON.stringify(rows)}`,
  ];
}
