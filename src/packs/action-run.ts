import { SatchelError } from '../core/errors.ts';
import type { Database } from '../store/sqlite.ts';
import { type Bound, bindAll, statementProblem } from './action-sql.ts';
import {
  isSet,
  lookup,
  paramValue,
  renderMarkdown,
  renderPlain,
  type View,
} from './action-template.ts';
import {
  type ActionButtonSpec,
  type ActionSpec,
  buttonLines,
  type Params,
  statementsOf,
} from './actions.ts';
import type { DateParams } from './date-params.ts';

/** A button as a press made it: its label and what it runs, parameters filled. */
export interface ActionButton {
  label: string;
  action: string;
  params: Params;
}

/** What a press did: the reply (Markdown), its keyboard, and the model's prompt (`then: ask`). */
export interface ActionOutcome {
  text: string;
  buttons: ActionButton[][];
  /** With `then: ask`: what the model is asked, filled. */
  prompt?: string;
}

/** An action that could not run; nothing it would have written was kept. */
export class ActionError extends SatchelError {
  constructor(action: string, reason: string, cause?: unknown) {
    super('action_failed', `The action "${action}" failed and changed nothing: ${reason}`, {
      cause,
    });
  }
}

/** The most buttons a keyboard gets (an `each` over many rows is cut there). */
export const MAX_BUTTONS = 40;
/** The most characters of a label shown on a button. */
const MAX_LABEL = 64;

/**
 * The parameters an action's statements get: the pressed button's and the dates every pack
 * query may use (SPEC §3: `:today` and the like, date-params.ts), which a button cannot
 * override. The one place they are put together: `pack validate` binds what this returns too.
 */
export function actionParams(button: Params, dates: DateParams): Params {
  return { ...button, ...dates };
}

/**
 * Runs `action` on a pack's database `db` with the pressed button's `params`: its statements in
 * one transaction (each checked first: one statement, writes only to `owned` tables), then its
 * follow-up query in the same transaction; a failure rolls all of it back and throws an
 * ActionError. Then fills the reply, the keyboard and the prompt from what they returned.
 */
export function runAction(
  db: Database,
  action: ActionSpec,
  owned: readonly string[],
  params: Params,
  dates: DateParams,
): ActionOutcome {
  const given = actionParams(params, dates);
  const view = db.transaction(() => {
    const bound = bindAll(given);
    const rules = { owned: new Set(owned) };
    let changes = 0;
    let row: View = {};
    for (const sql of statementsOf(action)) {
      refuseIf(action, statementProblem(db, sql, bound, rules));
      const statement = db.prepare(sql);
      if (statement.reader) {
        const rows = run(action, () => statement.all(bound) as View[]);
        if (statement.readonly === false) changes += rows.length;
        row = rows[0] ?? {};
      } else changes += run(action, () => statement.run(bound).changes);
    }
    const rows = action.query ? query(db, action, bound, rules) : [];
    return { ...given, ...row, ...rows[0], rows, changes };
  })();
  return {
    text: renderMarkdown(action.reply, view),
    buttons: keyboardOf(action, view),
    ...(action.prompt === undefined ? {} : { prompt: renderPlain(action.prompt, view) }),
  };
}

function query(
  db: Database,
  action: ActionSpec,
  bound: Record<string, Bound>,
  rules: { owned: ReadonlySet<string> },
): View[] {
  const sql = action.query!;
  refuseIf(action, statementProblem(db, sql, bound, { ...rules, read: true }));
  return run(action, () => db.prepare(sql).all(bound) as View[]);
}

function refuseIf(action: ActionSpec, problem: string | undefined): void {
  if (problem) throw new ActionError(action.id, `a statement ${problem}`);
}

/** Runs a statement; SQLite's refusal (a CHECK, a UNIQUE, a trigger's RAISE) as an ActionError. */
function run<T>(action: ActionSpec, step: () => T): T {
  try {
    return step();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_'))
      throw new ActionError(action.id, (error as Error).message, error);
    throw error;
  }
}

/** The keyboard: each line's buttons that are shown, `each` repeated per row. */
function keyboardOf(action: ActionSpec, view: View): ActionButton[][] {
  const lines: ActionButton[][] = [];
  let count = 0;
  const take = (buttons: ActionButton[]) => {
    const kept = buttons.slice(0, MAX_BUTTONS - count);
    count += kept.length;
    if (kept.length > 0) lines.push(kept);
  };
  for (const [i, line] of buttonLines(action).entries()) {
    const alone = !Array.isArray(action.buttons[i]);
    const made = line.flatMap((button) => filled(button, view));
    // A button of its own line repeated for each row makes a line per row.
    if (alone && line[0]?.each) for (const button of made) take([button]);
    else take(made);
  }
  return lines;
}

/** A button as shown: none when its `if` is not set, one per row with `each`. */
function filled(button: ActionButtonSpec, view: View): ActionButton[] {
  if (button.if !== undefined && !isSet(lookup(view, button.if))) return [];
  const rows = button.each ? (view.rows as View[]) : [undefined];
  return rows.map((row) => {
    const at = row ? { ...view, ...row } : view;
    return {
      label: [...renderPlain(button.label, at).trim()].slice(0, MAX_LABEL).join('') || '·',
      action: button.action,
      params: Object.fromEntries(
        Object.entries(button.params).map(([name, value]) => [name, paramValue(value, at)]),
      ),
    };
  });
}
