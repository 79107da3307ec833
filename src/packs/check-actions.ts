import type { YamlSource } from '../core/yaml-source.ts';
import type { Database } from '../store/sqlite.ts';
import { actionParams } from './action-run.ts';
import { type Bound, bindAll, statementProblem } from './action-sql.ts';
import { templateNames } from './action-template.ts';
import { type ActionButtonSpec, type ActionSpec, statementsOf } from './actions.ts';
import { dateParams } from './date-params.ts';
import { fieldPath } from './manifest.ts';
import type { PackProblem } from './problems.ts';

/** One problem with an action: where in pack.yml (`['actions', 2, 'sql', 0]`) and what. */
export interface ActionProblem {
  path: (string | number)[];
  problem: string;
}

/**
 * The actions' problems as pack problems of `file` (pack.yml), with their lines: those of
 * every action that parsed (in a manifest with other problems too), once the owned tables
 * exist in `db` (else that is the problem to fix first).
 */
export function actionProblems(
  file: string,
  found: {
    actions: readonly (ActionSpec | undefined)[];
    ownedTables: readonly string[] | undefined;
    source: Pick<YamlSource, 'lineOf'> | undefined;
  },
  db: Database,
  tables: ReadonlySet<string>,
): PackProblem[] {
  const owned = found.ownedTables ?? [];
  if (found.actions.length === 0 || !owned.every((t) => tables.has(t))) return [];
  return checkActions(db, found.actions, owned).map(({ path, problem }) => ({
    file,
    field: fieldPath(path),
    problem,
    line: found.source?.lineOf(path),
  }));
}

/** Names every template may read besides parameters and columns. */
const ALWAYS = ['rows', 'changes'];

/**
 * Checks each action against the pack's database as a start makes it (`db`: schema.sql and
 * the migrations, in memory): every statement prepares, binds only the action's parameters
 * and writes only `owned` tables; the follow-up query only reads; every template parses and
 * reads only names it will have (parameters, the statements' and the query's columns, `rows`,
 * `changes`). Nothing is run. Button targets and parameters are checked with the manifest.
 * An action that did not parse (undefined) is skipped: its problems are the manifest's.
 */
export function checkActions(
  db: Database,
  actions: readonly (ActionSpec | undefined)[],
  owned: readonly string[],
): ActionProblem[] {
  return actions.flatMap((action, i) =>
    action ? checkAction(db, action, owned, ['actions', i]) : [],
  );
}

function checkAction(
  db: Database,
  action: ActionSpec,
  owned: readonly string[],
  at: (string | number)[],
): ActionProblem[] {
  const problems: ActionProblem[] = [];
  const button = Object.fromEntries(action.params.map((name) => [name, null]));
  const dates = dateParams(0, 'UTC');
  const given = actionParams(button, dates);
  const bound = bindAll(given);
  const rules = { owned: new Set(owned) };
  const known = new Set([...Object.keys(button), ...ALWAYS]);
  const list = typeof action.sql === 'string' ? undefined : action.sql;
  statementsOf(action).forEach((sql, j) => {
    const path = list ? [...at, 'sql', j] : [...at, 'sql'];
    const problem = statementProblem(db, sql, bound, rules);
    if (problem) problems.push({ path, problem: `this statement ${problem}` });
    else for (const name of columnsOf(db, sql, bound)) known.add(name);
  });
  if (action.query !== undefined) {
    const problem = statementProblem(db, action.query, bound, { ...rules, read: true });
    if (problem) problems.push({ path: [...at, 'query'], problem: `the query ${problem}` });
    else for (const name of columnsOf(db, action.query, bound)) known.add(name);
  }
  // The dates last: a name that is not known lists the action's own names first.
  for (const name of Object.keys(dates)) known.add(name);
  // A name is unknown only once the statements that would give it are known to be right.
  const names = problems.length === 0 ? known : undefined;
  problems.push(...templateProblems(action.reply, [...at, 'reply'], names));
  if (action.prompt !== undefined)
    problems.push(...templateProblems(action.prompt, [...at, 'prompt'], names));
  action.buttons.forEach((entry, b) => {
    const line = Array.isArray(entry) ? entry : [entry];
    line.forEach((button, n) => {
      const path = Array.isArray(entry) ? [...at, 'buttons', b, n] : [...at, 'buttons', b];
      problems.push(...buttonProblems(button, path, action, names));
    });
  });
  return problems;
}

/** The columns a statement returns (a SELECT, or one with RETURNING); none for a write. */
function columnsOf(db: Database, sql: string, bound: Record<string, Bound>): string[] {
  const statement = db.prepare(sql);
  statement.bind(bound);
  return statement.reader ? statement.columns().map((c) => c.name) : [];
}

function buttonProblems(
  button: ActionButtonSpec,
  at: (string | number)[],
  action: ActionSpec,
  names: ReadonlySet<string> | undefined,
): ActionProblem[] {
  const problems = templateProblems(button.label, [...at, 'label'], names);
  for (const [name, value] of Object.entries(button.params))
    if (typeof value === 'string')
      problems.push(...templateProblems(value, [...at, 'params', name], names));
  const shown = button.if?.split('.')[0];
  if (shown !== undefined && names && !names.has(shown))
    problems.push({ path: [...at, 'if'], problem: unknownName(shown, names) });
  if (button.each && action.query === undefined)
    problems.push({
      path: [...at, 'each'],
      problem: 'repeats the button per row of `query`, and this action has no query',
    });
  return problems;
}

/** A template that does not parse, or reads a name it will not have (when `names` is given). */
function templateProblems(
  template: string,
  at: (string | number)[],
  names: ReadonlySet<string> | undefined,
): ActionProblem[] {
  const read = templateNames(template);
  if ('problem' in read) return [{ path: at, problem: read.problem }];
  if (!names) return [];
  return read.names
    .filter((name) => !names.has(name))
    .map((name) => ({ path: at, problem: unknownName(name, names) }));
}

function unknownName(name: string, names: ReadonlySet<string>): string {
  return `"${name}" is neither a parameter nor a column of the statements or the query (it has: ${[...names].join(', ')})`;
}
