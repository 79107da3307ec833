/**
 * `satchel pack test`: the bundled packs' tests pass (CI runs them here), every SQL block
 * of their skills is run by one, and a broken test fails with exit 1 naming the test and
 * the expectation, with what was seen instead.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.ts';
import { packNewCommand } from '../../src/cli/pack-new.ts';
import { packTestCommand } from '../../src/cli/pack-test.ts';
import { recordingIo } from '../support/cli-io.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PACKS = path.join(REPO, 'packs');
const BUNDLED = ['assistant', 'habits', 'journal', 'vocab'];

const tempRoot = tempDirs('satchel-pack-test-');

async function packTest(env: Record<string, string>, cwd: string, ...args: string[]) {
  const io = recordingIo(env, cwd);
  const code = await packTestCommand.run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** A new pack (`satchel pack new demo`) whose tests/ holds only `tests` (file → YAML). */
async function demoPack(tests: Record<string, string>): Promise<string> {
  const root = tempRoot();
  expect(await packNewCommand.run(['demo', '--dir', root], recordingIo({}, root))).toBe(0);
  const dir = path.join(root, 'demo');
  rmSync(path.join(dir, 'tests'), { recursive: true });
  mkdirSync(path.join(dir, 'tests'));
  for (const [file, text] of Object.entries(tests))
    writeFileSync(path.join(dir, 'tests', file), text);
  return dir;
}

const oneTurn = (expect: string, steps = '- answer: Saved.') => `tests:
  - name: saves a note
    turns:
      - user: remember milk
        model:
          - tool: db_write
            args: { action: insert, table: notes, values: { body: milk } }
          ${steps}
        expect:
          ${expect}
`;

describe('satchel pack test', () => {
  it('passes on every bundled pack (exit 0), one line per test', async () => {
    const run = await packTest({ SATCHEL_PACKS: PACKS }, REPO);
    expect(run.err).toBe('');
    expect(run.out).not.toContain('✗');
    for (const pack of BUNDLED) expect(run.out).toContain(`${pack}\n✓ `);
    const [, passed] = run.out.match(/^(\d+) passed, 0 failed$/m) ?? [];
    expect(Number(passed)).toBeGreaterThanOrEqual(15);
    expect(run.code).toBe(0);
  }, 300_000);

  it.each(BUNDLED)("%s's tests run every SQL block of its skills", (pack) => {
    const normal = (text: string) => text.replace(/\s+/g, ' ').trim();
    const tests = normal(
      readdirSync(path.join(PACKS, pack, 'tests'))
        .map((f) => readFileSync(path.join(PACKS, pack, 'tests', f), 'utf8'))
        .join('\n'),
    );
    const skills = path.join(PACKS, pack, 'skills');
    const untested = readdirSync(skills).flatMap((skill) => {
      const text = readFileSync(path.join(skills, skill, 'SKILL.md'), 'utf8');
      const blocks = [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      // A block with -- comments is a template the model trims to the filters it needs.
      return blocks
        .filter((sql) => !sql.includes('--') && !tests.includes(normal(sql)))
        .map((sql) => `${skill}: ${sql.slice(0, 60)}`);
    });
    expect(untested).toEqual([]);
  });

  it('runs the first test of a new pack', async () => {
    const root = tempRoot();
    await packNewCommand.run(['demo', '--dir', root], recordingIo({}, root));
    const run = await packTest({}, root, 'demo/');
    expect(run.out).toBe('demo\n✓ notes.yml: saves a note and lists it\n\n1 passed, 0 failed\n');
    expect(run.code).toBe(0);
  });

  it('fails a broken test with exit 1, naming the test, the expectation and what was seen', async () => {
    const dir = await demoPack({
      'broken.yml': oneTurn(
        'db: { sql: "SELECT body FROM notes", rows: [{ body: eggs }] }\n          reply_contains: [Noted]\n          model_saw: ["[Sent: 2026-01-06"]',
      ),
    });
    const run = await packTest({}, dir, '.');
    expect(run.out).toContain('✗ broken.yml: saves a note\n');
    expect(run.out).toContain(
      'turn 1: db "SELECT body FROM notes": expected [{"body":"eggs"}], got [{"body":"milk"}]',
    );
    // The reply as the user sees it, with the receipt of the row the turn saved (SPEC §18).
    expect(run.out).toContain(
      'turn 1: reply_contains "Noted": the reply was "Saved.\\n\\n✓ 1 row saved"',
    );
    // The default time: Monday 5 January 2026, 09:00 UTC.
    expect(run.out).toContain(
      'turn 1: model_saw "[Sent: 2026-01-06": not in the model\'s requests; the last message was "[Sent: 2026-01-05 Monday 09:00 UTC]\\nremember milk"',
    );
    expect(run.out).toMatch(/0 passed, 1 failed\n$/);
    expect(run.code).toBe(1);
  });

  it('checks tool results: tool_ok fails on an error, tool_error on a success', async () => {
    const dir = await demoPack({
      'a.yml': oneTurn('tool_error: [db_write]'),
      'b.yml': oneTurn(
        'tool_ok: [db_write]',
        '- tool: db_write\n            args: { action: insert, table: nope, values: { x: 1 } }\n          - answer: ok',
      ),
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain('✗ a.yml: saves a note\n    turn 1: tool_error db_write: no error;');
    expect(run.out).toMatch(
      /✗ b\.yml: saves a note\n {4}turn 1: tool_ok db_write: it returned "Error: /,
    );
    expect(run.code).toBe(1);
  });

  it('counts the jobs the pack scheduled, at the fixed time', async () => {
    const schedule = `- tool: schedule
            args: { action: create, schedule: "2026-01-06T08:00:00Z", prompt: buy milk }
          - answer: I will remind you.`;
    const dir = await demoPack({
      'jobs.yml': oneTurn('jobs: 2\n          tool_ok: [schedule]', schedule),
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain('turn 1: jobs: expected 2, found 1');
    expect(run.out).not.toContain('tool_ok');
    expect(run.code).toBe(1);
  });

  it('reports an invalid test file, unused script steps and a pack without tests', async () => {
    const dir = await demoPack({
      'bad.yml': 'tests:\n  - name: x\n    turns: []\n',
      'both.yml': 'tests:\n  - name: x\n    turns: [{ user: hi, press: "Yes" }]\n',
      'early.yml': oneTurn('tool_ok: [db_write]', '- answer: one\n          - answer: two'),
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain('✗ bad.yml\n    not a valid test file: tests.0.turns:');
    expect(run.out).toContain(
      '✗ both.yml\n    not a valid test file: tests.0.turns.0: a turn has either user (a message) or press (a button label), and may have now, model and expect\n',
    );
    expect(run.out).toContain('turn 1: model: the turn ended with 1 scripted step(s) unused');
    rmSync(path.join(dir, 'tests'), { recursive: true });
    const none = await packTest({}, dir, dir);
    expect(none.out).toContain('✗ demo has no tests (tests/*.yml)');
    expect(none.code).toBe(1);
  });

  it('ends a turn that waits for a button press (ask_user) and fails it, instead of hanging', async () => {
    const ask = `- tool: ask_user
            args: { question: Sure?, options: [Yes, No] }
          - answer: ok`;
    const dir = await demoPack({ 'ask.yml': oneTurn('tool_ok: [db_write]', ask) });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain(
      '✗ ask.yml: saves a note\n    turn 1: the turn asked a question (ask_user) and waits for a press: add a `press:` turn after it, whose `model` holds the steps after the answer\n',
    );
    expect(run.code).toBe(1);
  });

  it('presses ask_user choices: the steps before a question go with the turn that asked, the rest with its press', async () => {
    const dir = await demoPack({
      'press.yml': `tests:
  - name: asks twice, then saves
    turns:
      - user: remember milk
        model:
          - tool: ask_user
            args: { question: Save it?, options: ["Yes", "No"] }
        expect:
          reply_contains: ["Save it?\\n[Yes] [No]"]
          max_model_calls: 1
      - press: "Yes"
        model:
          - tool: ask_user
            args: { question: Which list?, options: [Ideas, Shopping] }
        expect:
          tool_ok: [ask_user]
          model_saw: ["The user chose: Yes"]
          reply_contains: ["Which list?\\n[Ideas] [Shopping]"]
          max_model_calls: 1
      - press: Shopping
        model:
          - tool: db_write
            args: { action: insert, table: notes, values: { body: "milk (shopping)" } }
          - answer: Saved to Shopping.
        expect:
          tool_ok: [ask_user, db_write]
          model_saw: ["The user chose: Shopping"]
          reply_contains: [Saved to Shopping.]
          max_model_calls: 2
          db: { sql: "SELECT body FROM notes", rows: [{ body: milk (shopping) }] }
`,
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toBe('demo\n✓ press.yml: asks twice, then saves\n\n1 passed, 0 failed\n');
    expect(run.code).toBe(0);
  });

  it("presses a keyboard's button, which sends its label as if typed, through the same path", async () => {
    const dir = await demoPack({
      'keyboard.yml': `tests:
  - name: picks from a keyboard
    turns:
      - user: what should I note?
        model:
          - tool: send_message
            args: { kind: keyboard, text: Pick one, buttons: [Milk, Eggs] }
          - answer: Or type it.
      - press: Eggs
        model:
          - tool: db_write
            args: { action: insert, table: notes, values: { body: eggs } }
          - answer: Noted eggs.
        expect:
          model_saw: ["UTC]\\nEggs"]
          reply_contains: [Noted eggs.]
          db: { sql: "SELECT body FROM notes", rows: [{ body: eggs }] }
`,
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toBe('demo\n✓ keyboard.yml: picks from a keyboard\n\n1 passed, 0 failed\n');
    expect(run.code).toBe(0);
  });

  it('fails a press of a label that is not on the last keyboard, listing the labels that are', async () => {
    const asks = `- tool: ask_user
            args: { question: Save it?, options: ["Yes", "No"] }`;
    const dir = await demoPack({
      'a.yml': `tests:
  - name: presses a missing button
    turns:
      - user: remember milk
        model:
          ${asks}
      - press: Maybe
        model: [{ answer: never }]
      - user: are you there?
        model: [{ answer: yes }]
`,
      'b.yml': `tests:
  - name: presses where there are no buttons
    turns:
      - press: "Yes"
`,
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain(
      '✗ a.yml: presses a missing button\n' +
        '    turn 2: press "Maybe": no such button on the last message with buttons ("Save it?"); its buttons are "Yes", "No"\n' +
        '    the 1 turn(s) after turn 2 were not run\n',
    );
    expect(run.out).toContain(
      '✗ b.yml: presses where there are no buttons\n    turn 1: press "Yes": the bot sent no message with buttons\n',
    );
    expect(run.out).toMatch(/0 passed, 2 failed\n$/);
    expect(run.code).toBe(1);
  });

  it('fails a turn that makes more model calls than max_model_calls, saying how many it made', async () => {
    const dir = await demoPack({
      'calls.yml': oneTurn('max_model_calls: 1\n          tool_ok: [db_write]'),
      'zero.yml': oneTurn('max_model_calls: 2'),
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toContain(
      '✗ calls.yml: saves a note\n    turn 1: max_model_calls 1: the turn made 2 model calls\n',
    );
    expect(run.out).toContain('✓ zero.yml: saves a note\n');
    expect(run.code).toBe(1);
  });

  it("gives db_query and expect.db the date parameters at the turn's time, in the file's zone", async () => {
    const dir = await demoPack({
      'dates.yml': `now: 2026-01-04T10:30:00Z
timezone: Pacific/Auckland
tests:
  - name: today is Sunday evening in Auckland
    turns:
      - user: what day is it?
        model:
          - tool: db_query
            args: { sql: "SELECT :today AS today, :week_start AS week_start" }
          - answer: Sunday.
        expect:
          model_saw: ['"rows":[["2026-01-04","2025-12-29"]]', "[Now: 2026-01-04 Sunday 23:30 Pacific/Auckland]"]
          db:
            sql: SELECT :now AS now, :today AS today, :yesterday AS yesterday, :week_end AS week_end, :month_start AS month_start
            rows: [{ now: "2026-01-04T10:30:00.000Z", today: "2026-01-04", yesterday: "2026-01-03", week_end: "2026-01-04", month_start: "2026-01-01" }]
      - user: and now?
        now: 2026-01-04T11:00:00Z
        model: [{ answer: Monday. }]
        expect:
          db: { sql: "SELECT :today AS today, :week_start AS week_start", rows: [{ today: "2026-01-05", week_start: "2026-01-05" }] }
      - user: tomorrow?
        model: [{ answer: ok }]
        expect:
          db: { sql: "SELECT :tomorrow AS t", rows: [] }
`,
    });
    const run = await packTest({}, dir, dir);
    expect(run.out).toBe(
      'demo\n✗ dates.yml: today is Sunday evening in Auckland\n' +
        `    turn 3: db "SELECT :tomorrow AS t": the query failed: the query uses :tomorrow, which has no value: the named parameters are :now, :today, :yesterday, :week_start, :week_end, :month_start (computed in the user's time zone); pass other values with ? placeholders and "params"\n` +
        '\n0 passed, 1 failed\n',
    );
  });

  it('refuses an unknown pack name as a usage error', async () => {
    await expect(packTest({ SATCHEL_PACKS: PACKS }, REPO, 'nope')).rejects.toThrow(UsageError);
  });
});
