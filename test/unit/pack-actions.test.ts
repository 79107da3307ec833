/**
 * Pack actions (SPEC §3) without a chat: what `pack validate` says of an action's SQL,
 * templates and buttons, and what running one does to the pack's database.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ActionError, runAction } from '../../src/packs/action-run.ts';
import { dateParams } from '../../src/packs/date-params.ts';
import { loadPack, type Pack } from '../../src/packs/loader.ts';
import { openPackStorage, type PackStorage } from '../../src/packs/storage.ts';
import { validatePack, validationReport } from '../../src/packs/validate.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const CARDS = fileURLToPath(new URL('../fixtures/action-packs/cards', import.meta.url));
const temp = tempDirs('satchel-actions-unit-');
/** The dates of a Wednesday morning in Berlin (the week from Monday 2026-01-05). */
const DATES = dateParams(Date.UTC(2026, 0, 7, 8, 30), 'Europe/Berlin');
/** Pack storages a test opened, closed after it (before its folders go). */
const opened: PackStorage[] = [];
afterEach(() => {
  for (const storage of opened.splice(0)) storage.close();
});
const open = (pack: Pack) => {
  const storage = openPackStorage(temp(), pack);
  opened.push(storage);
  return storage;
};

/** A copy of the cards pack whose `actions:` are `actions` (YAML, indented as under the key). */
function cardsWith(actions: string): string {
  const dir = path.join(temp(), 'cards');
  cpSync(CARDS, dir, { recursive: true });
  const file = path.join(dir, 'pack.yml');
  const manifest = readFileSync(file, 'utf8');
  writeFileSync(file, `${manifest.slice(0, manifest.indexOf('actions:'))}actions:\n${actions}`);
  return dir;
}

/** `pack validate`'s report lines for a copy of the cards pack with these actions. */
function report(actions: string): string[] {
  const { ok, text } = validationReport(validatePack(cardsWith(actions)));
  expect(ok).toBe(false);
  return text.split('\n').slice(1);
}

describe('pack validate: actions', () => {
  it('takes the cards pack as it is, and lists its actions', () => {
    const { ok, text } = validationReport(validatePack(CARDS));
    expect(ok).toBe(true);
    expect(text).toContain('\n  actions: start(), grade(card, grade), explain(card)');
  });

  it('refuses a write to a table the pack does not own, naming the statement', () => {
    expect(
      report(`  - id: log
    params: [card]
    sql:
      - UPDATE cards SET last_grade = 1 WHERE id = :card
      - INSERT INTO history (grade_id) VALUES (:card)
    reply: logged
`),
    ).toEqual([
      '`pack.yml` line 14: `actions[0].sql[1]` — this statement writes "history", which is not in schema.owned_tables',
    ]);
  });

  it('names each kind of mistake by its field, in one round', () => {
    expect(
      report(`  - id: one
    params: [card]
    sql: UPDATE cards SET nosuch = 1 WHERE id = :card
    query: DELETE FROM grades
    reply: "{{#front}}unclosed"
    buttons:
      - { label: Go, action: nowhere }
      - - { label: Two, action: two, params: { card: 1, extra: 2 } }
        - { label: Three, action: three, params: { card: 1 } }
  - id: two
    params: [card]
    sql: DROP TABLE cards
    reply: "{{> partial}}"
    then: ask
    buttons:
      - { label: Each, action: two, params: { card: 1 }, each: rows }
  - id: three
    sql: UPDATE cards SET last_grade = :grade
    query: SELECT id FROM cards WHERE id = ?
    reply: "{{id}}"
`),
    ).toEqual([
      '`pack.yml` line 12: `actions[0].sql` — this statement is refused by SQLite: no such column: nosuch',
      '`pack.yml` line 13: `actions[0].query` — the query writes: the statements under sql write, the query only reads',
      '`pack.yml` line 14: `actions[0].reply` — does not parse as a Mustache template: Unclosed section "front" at 18',
      '`pack.yml` line 16: `actions[0].buttons[0].action` — "nowhere" is not one of this pack\'s actions (one, two, three)',
      '`pack.yml` line 17: `actions[0].buttons[1][0].params.extra` — "extra" is not a parameter of action "two" (its params: card)',
      '`pack.yml` line 18: `actions[0].buttons[1][1].params.card` — "card" is not a parameter of action "three" (its params: none)',
      '`pack.yml` line 19: `actions[1].prompt` — is required with `then: ask`: it is what the model is asked',
      '`pack.yml` line 21: `actions[1].sql` — this statement must be one SELECT, INSERT, UPDATE, DELETE, REPLACE or WITH statement',
      '`pack.yml` line 22: `actions[1].reply` — includes a partial ({{> partial}}), which actions do not have',
      '`pack.yml` line 25: `actions[1].buttons[0].each` — repeats the button per row of `query`, and this action has no query',
      "`pack.yml` line 27: `actions[2].sql` — this statement uses :grade, which is not one of the action's params",
      '`pack.yml` line 28: `actions[2].query` — the query uses ? placeholders: name each parameter (:card) and list it in params',
    ]);
  });

  it('reads a misspelt field of a button as "unknown field", and still checks the other actions', () => {
    expect(
      report(`  - id: one
    reply: one
    buttons:
      - - { lable: Typo, action: one }
  - id: two
    sql: INSERT INTO history (grade_id) VALUES (1)
    reply: two
`),
    ).toEqual([
      '`pack.yml` line 13: `actions[0].buttons[0][0].label` — is required',
      '`pack.yml` line 13: `actions[0].buttons[0][0].lable` — unknown field',
      '`pack.yml` line 15: `actions[1].sql` — this statement writes "history", which is not in schema.owned_tables',
    ]);
  });

  it('checks the names a template reads once the statements are right', () => {
    expect(
      report(`  - id: one
    query: SELECT id, front FROM cards LIMIT 1
    reply: "{{front}} {{#rows}}{{back}}{{/rows}} {{changes}}"
    buttons:
      - { label: "{{id}}", action: one, if: frnt }
`),
    ).toEqual([
      '`pack.yml` line 12: `actions[0].reply` — "back" is neither a parameter nor a column of the statements or the query (it has: rows, changes, id, front, now, today, yesterday, week_start, week_end, month_start)',
      '`pack.yml` line 14: `actions[0].buttons[0].if` — "frnt" is neither a parameter nor a column of the statements or the query (it has: rows, changes, id, front, now, today, yesterday, week_start, week_end, month_start)',
    ]);
  });
});

describe('pack validate: a skill command that runs an action', () => {
  /** A copy of the cards pack whose review skill's frontmatter reads `front` after its description. */
  function reviewWith(front: string): string {
    const dir = path.join(temp(), 'cards');
    cpSync(CARDS, dir, { recursive: true });
    const file = path.join(dir, 'skills', 'review', 'SKILL.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('command: true\n', front));
    return dir;
  }
  const problems = (front: string) =>
    validationReport(validatePack(reviewWith(front)))
      .text.split('\n')
      .slice(1);

  it('takes an action without params: the command runs it', () => {
    const pack = loadPack(reviewWith('command: true\naction: start\n'));
    expect(pack.skills[0]).toMatchObject({ name: 'review', command: true, action: 'start' });
  });

  it('refuses an unknown action, one with params, and an action without command: true', () => {
    expect(problems('command: true\naction: strat\n')).toEqual([
      expect.stringMatching(
        /review\/SKILL\.md.*`action` — "strat" is not one of this pack's actions \(start, grade, explain\)$/,
      ),
    ]);
    expect(problems('command: true\naction: grade\n')).toEqual([
      expect.stringMatching(
        /`action` — action "grade" takes params \(card, grade\), which a command cannot give$/,
      ),
    ]);
    expect(problems('action: start\n')).toEqual([
      expect.stringMatching(/`action` — is the action the command runs: it needs command: true$/),
    ]);
  });
});

describe('running an action', () => {
  function cards(): { pack: Pack; storage: PackStorage } {
    const pack = loadPack(CARDS);
    return { pack, storage: open(pack) };
  }
  const action = (pack: Pack, id: string) => pack.manifest.actions.find((a) => a.id === id)!;
  const rows = (storage: PackStorage, sql: string) => storage.db.prepare(sql).all();

  it('writes in one transaction, a trigger keeps the derived columns, and the reply shows the next card', () => {
    const { pack, storage } = cards();
    const owned = pack.manifest.schema.owned_tables;
    const outcome = runAction(
      storage.db,
      action(pack, 'grade'),
      owned,
      { card: 1, grade: 4 },
      DATES,
    );
    expect(rows(storage, 'SELECT id, reviews, score, last_grade FROM cards WHERE id = 1')).toEqual([
      { id: 1, reviews: 1, score: 4, last_grade: 4 },
    ]);
    expect(rows(storage, 'SELECT grade_id FROM history')).toEqual([{ grade_id: 1 }]);
    expect(outcome.text).toBe('**gato** = cat');
    // "{{id}}" alone keeps the id a number; the buttons with `if: id` are shown.
    expect(outcome.buttons).toEqual([
      [
        { label: 'Again', action: 'grade', params: { card: 2, grade: 1 } },
        { label: 'Good', action: 'grade', params: { card: 2, grade: 4 } },
      ],
      [{ label: 'Examples', action: 'explain', params: { card: 2 } }],
    ]);
  });

  it('escapes a value for Markdown: its * _ and < show as written', () => {
    const { pack, storage } = cards();
    const outcome = runAction(storage.db, action(pack, 'explain'), [], { card: 3 }, DATES);
    expect(outcome.text).toBe('Looking for examples of **\\*uno\\* \\<i\\>**…');
    expect(outcome.prompt).toBe('Give two short example sentences with "*uno* <i>" (_doce_).');
  });

  it('shows no button whose `if` is not set once every card is done', () => {
    const { pack, storage } = cards();
    storage.db.exec('UPDATE cards SET reviews = 1 WHERE id IN (2, 3)');
    const outcome = runAction(
      storage.db,
      action(pack, 'grade'),
      ['cards', 'grades'],
      {
        card: 1,
        grade: 1,
      },
      DATES,
    );
    expect(outcome).toEqual({ text: 'All done: 1 graded.', buttons: [] });
  });

  it("fills the date parameters in the person's zone; a button cannot override them", () => {
    const pack = loadPack(
      cardsWith(`  - id: week
    params: [today]
    query: SELECT :today AS today, :yesterday AS yesterday, :week_start AS monday, :week_end AS sunday, :month_start AS first
    reply: "{{{today}}} {{{yesterday}}} {{{monday}}}–{{{sunday}}} {{{first}}}"
`),
    );
    // 23:30 UTC on Sunday 2026-01-11 is already Monday the 12th in Berlin.
    const late = dateParams(Date.UTC(2026, 0, 11, 23, 30), 'Europe/Berlin');
    const outcome = runAction(open(pack).db, action(pack, 'week'), [], { today: 'x' }, late);
    expect(outcome.text).toBe('2026-01-12 2026-01-11 2026-01-12–2026-01-18 2026-01-01');
  });

  it('repeats an `each: rows` button per row: a line each on its own, side by side in a line', () => {
    const pack = loadPack(
      cardsWith(`  - id: list
    query: SELECT id, front FROM cards ORDER BY id
    reply: "{{#rows}}{{front}}, {{/rows}}"
    buttons:
      - { label: "{{front}}", action: pick, params: { card: "{{id}}" }, each: rows }
      - - { label: "#{{id}}", action: pick, params: { card: "{{id}}" }, each: rows }
        - { label: Done, action: list }
  - id: pick
    params: [card]
    reply: picked
`),
    );
    const outcome = runAction(open(pack).db, action(pack, 'list'), [], {}, DATES);
    expect(outcome.text).toBe('perro, gato, \\*uno\\* \\<i\\>, ');
    expect(outcome.buttons.map((line) => line.map((b) => `${b.label}→${b.params.card}`))).toEqual([
      ['perro→1'],
      ['gato→2'],
      ['*uno* <i>→3'],
      ['#1→1', '#2→2', '#3→3', 'Done→undefined'],
    ]);
  });

  it('rolls back every statement when a later one fails, and says why in one sentence', () => {
    const { pack, storage } = cards();
    const run = () =>
      runAction(
        storage.db,
        action(pack, 'grade'),
        ['cards', 'grades'],
        { card: 1, grade: 9 },
        DATES,
      );
    expect(run).toThrow(ActionError);
    expect(run).toThrow(
      'The action "grade" failed and changed nothing: CHECK constraint failed: last_grade BETWEEN 0 AND 5',
    );
    expect(rows(storage, 'SELECT * FROM grades')).toEqual([]);
    expect(rows(storage, 'SELECT reviews FROM cards WHERE id = 1')).toEqual([{ reviews: 0 }]);
    expect(rows(storage, 'SELECT * FROM history')).toEqual([]);
  });

  it('refuses at run time a write to a table the pack does not own (its owned tables changed)', () => {
    const { pack, storage } = cards();
    const run = () =>
      runAction(storage.db, action(pack, 'grade'), ['cards'], { card: 1, grade: 4 }, DATES);
    expect(run).toThrow(
      'The action "grade" failed and changed nothing: a statement writes "grades", which is not in schema.owned_tables',
    );
    expect(rows(storage, 'SELECT count(*) AS n FROM grades')).toEqual([{ n: 0 }]);
  });
});

describe("docs/PACKS.md's worked example", () => {
  const docs = readFileSync(fileURLToPath(new URL('../../docs/PACKS.md', import.meta.url)), 'utf8');
  const section = docs.slice(docs.indexOf('## Actions: buttons that run SQL'));
  const block = (lang: string) =>
    new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section)![1]!;

  it('validates, and reviews two cards as the docs say', () => {
    const dir = path.join(temp(), 'cards');
    cpSync(CARDS, dir, { recursive: true });
    const head = readFileSync(path.join(CARDS, 'pack.yml'), 'utf8');
    writeFileSync(
      path.join(dir, 'pack.yml'),
      `${head.slice(0, head.indexOf('schema:'))}${block('yaml')}`,
    );
    writeFileSync(
      path.join(dir, 'schema.sql'),
      `${block('sql')}INSERT INTO cards (front, back) VALUES ('perro', 'dog'), ('gato', 'cat');\n`,
    );
    expect(validatePack(dir).problems).toEqual([]);
    const pack = loadPack(dir);
    const storage = open(pack);
    const press = (id: string, params = {}) =>
      runAction(
        storage.db,
        pack.manifest.actions.find((a) => a.id === id)!,
        pack.manifest.schema.owned_tables,
        params,
        DATES,
      );
    const labels = (outcome: ReturnType<typeof press>) =>
      outcome.buttons.map((line) => line.map((b) => b.label));
    const start = press('next');
    expect([start.text, labels(start)]).toEqual(['**perro** (2 to go)', [['Show answer']]]);
    const shown = press('show', start.buttons[0]![0]!.params);
    expect([shown.text, labels(shown)]).toEqual([
      '**perro** = dog',
      [['Again', 'Hard', 'Good', 'Easy']],
    ]);
    const next = press('grade', shown.buttons[0]![2]!.params);
    expect(next.text).toBe('**gato** (1 to go)');
    const easy = press('show', next.buttons[0]![0]!.params).buttons[0]![3]!;
    expect(press('grade', easy.params)).toEqual({ text: 'All done for today.', buttons: [] });
    expect(
      storage.db
        .prepare(
          "SELECT front, interval, julianday(due_on) - julianday(date('now')) AS days FROM cards",
        )
        .all(),
    ).toEqual([
      { front: 'perro', interval: 1, days: 1 },
      { front: 'gato', interval: 4, days: 4 },
    ]);
  });
});
