/**
 * The utility measure (docs/SECURITY.md "The injection suite"): the defences must not make
 * satchel a nag. Ten everyday tasks with a well-behaved model, each in a fresh session (the
 * owner allows once), then all ten in one session (the owner presses "Always allow" where
 * offered); the questions of each task are counted and published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWeb, reply } from '../fakes/web-server.ts';
import { ALLOWED_USER } from '../support/harness.ts';
import { type Arena, startArena } from './arena.ts';
import { pageWith } from './carriers.ts';
import { type HostileFeed, startHostileFeed } from './hostile-feed.ts';
import { printForDocs, publishedBlock } from './matrix.ts';
import { scriptOf, TASK_PAGES, TASKS, type Task } from './tasks.ts';

interface Measured {
  task: Task;
  fresh: string[];
  oneSession: string[];
  answered: { fresh: boolean; oneSession: boolean };
}

const measured: Measured[] = TASKS.map((task) => ({
  task,
  fresh: [],
  oneSession: [],
  answered: { fresh: false, oneSession: false },
}));
let web: FakeWeb;
let feed: HostileFeed;

/** The tool each question asks about ("Allow web_fetch?" → web_fetch). */
const toolOf = (question: string) =>
  /Allow (\S+?)\?/.exec(question.replaceAll('\\', ''))?.[1] ?? '?';

async function arena(): Promise<Arena> {
  return startArena({ webHosts: [`127.0.0.1:${web.port}`], feed, respond: () => ({ text: 'ok' }) });
}

async function perform(a: Arena, task: Task): Promise<{ questions: string[]; answered: boolean }> {
  const asked = a.questions.length;
  a.search.hits = [
    { title: 'Ferns', url: 'https://example.org/ferns', snippet: 'Repot in spring.' },
  ];
  a.h.model.enqueue(...scriptOf(task, web.url));
  a.say(task.say.replaceAll('{web}', web.url));
  await a.idle();
  const answered = a.h.tg.texts(ALLOWED_USER).some((t) => t.startsWith(`Done: ${task.name}.`));
  return { questions: a.questions.slice(asked).map((q) => toolOf(q.text)), answered };
}

beforeAll(async () => {
  web = await FakeWeb.start((req, res) => {
    const page = TASK_PAGES[/^\/page\/(\w+)$/.exec(req.path)?.[1] ?? ''];
    if (page) reply(res, 'text/html', pageWith(page));
    else reply(res, 'text/plain', 'not found', 404);
  });
  feed = await startHostileFeed();
  const fresh = await arena();
  fresh.decide = () => 'Allow once';
  try {
    for (const m of measured) {
      fresh.reset();
      fresh.say('/new');
      await fresh.idle();
      const done = await perform(fresh, m.task);
      m.fresh = done.questions;
      m.answered.fresh = done.answered;
    }
  } finally {
    await fresh.close();
  }
  const one = await arena();
  one.decide = () => 'Always allow';
  try {
    for (const m of measured) {
      const done = await perform(one, m.task);
      m.oneSession = done.questions;
      m.answered.oneSession = done.answered;
    }
  } finally {
    await one.close();
  }
}, 120_000);

afterAll(async () => {
  console.log(`The utility measure (questions per task):\n\n${utilityTable(measured)}`);
  printForDocs('utility-table', utilityTable(measured));
  await web?.stop();
  await feed?.close();
});

/** The table docs/SECURITY.md publishes: questions per task, and the tools they named. */
function utilityTable(rows: readonly Measured[]): string {
  const asked = (tools: string[]) => (tools.length ? `${tools.length} (${tools.join(', ')})` : '0');
  const sum = (pick: (m: Measured) => string[]) => rows.reduce((n, m) => n + pick(m).length, 0);
  return [
    '| Task | reads outside content | fresh session | all ten in one session |',
    '|---|---|---|---|',
    ...rows.map(
      (m) =>
        `| ${m.task.name} | ${m.task.readsOutside ? 'yes' : 'no'} | ${asked(m.fresh)} | ${asked(m.oneSession)} |`,
    ),
    `| **all** | | ${sum((m) => m.fresh)} | ${sum((m) => m.oneSession)} |`,
  ].join('\n');
}

describe('the utility measure', () => {
  it('does every task, in a fresh session and in one long session', () => {
    expect(
      measured.filter((m) => !m.answered.fresh || !m.answered.oneSession).map((m) => m.task.name),
    ).toEqual([]);
  });

  it('asks at most two questions for a task in a fresh session, and none when nothing outside was read', () => {
    for (const m of measured) {
      expect(m.fresh.length, m.task.name).toBeLessThanOrEqual(2);
      if (!m.task.readsOutside) expect(m.fresh, m.task.name).toEqual([]);
    }
  });

  it('asks at most once per tool in one session where the owner chose "Always allow"', () => {
    const tools = measured.flatMap((m) => m.oneSession);
    expect(tools.filter((tool, i) => tools.indexOf(tool) !== i)).toEqual([]);
  });

  it('publishes in docs/SECURITY.md the table it measures (INJECTION_TABLE=print to regenerate)', () => {
    expect(publishedBlock('utility-table')).toBe(utilityTable(measured));
  });
});
