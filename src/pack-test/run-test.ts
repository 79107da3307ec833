import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import { parseConfig } from '../config/config.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { Address } from '../core/types.ts';
import { type Core, createCore } from '../core-app.ts';
import { unavailableHub } from '../mcp/default-hub.ts';
import { type DateParams, dateParams, explainQueryError } from '../packs/date-params.ts';
import { jobs } from '../store/schema.ts';
import { Database } from '../store/sqlite.ts';
import { createTestChannel, type TestChannel } from './channel.ts';
import { messageEvent, pressEvent } from './events.ts';
import { type TurnOutcome, unmet } from './expect.ts';
import { createScriptedModel, type ScriptedModel } from './scripted-model.ts';
import type { PackTest, TestFile, Turn } from './test-file.ts';

const PLATFORM = 'packtest';
const CHAT: Address = { platform: PLATFORM, chatId: '1' };

/** A clock that shows the test's time and moves only when a turn says so. */
function fixedClock(start: number): Clock & { set(at: number): void } {
  let current = start;
  let id = 0;
  // Timers never fire: nothing a test checks waits for one (the scheduler is not started).
  return {
    now: () => current,
    setTimeout: () => ++id as unknown as TimerHandle,
    clearTimeout: () => {},
    set(at) {
      current = at;
    },
  };
}

interface Rig {
  core: Core;
  clock: ReturnType<typeof fixedClock>;
  channel: TestChannel;
  script: ScriptedModel;
  home: string;
}

/** The whole core on a fresh home with only this pack, the scripted model and the test channel. */
function rig(packDir: string, file: TestFile): Rig {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-pack-test-'));
  const packs = path.join(home, 'pack-under-test');
  mkdirSync(packs);
  symlinkSync(packDir, path.join(packs, path.basename(packDir)), 'dir');
  const config = parseConfig({
    SATCHEL_HOME: path.join(home, 'home'),
    SATCHEL_PACKS: packs,
    OPENAI_API_KEY: 'sk-pack-test-offline-0000000000',
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: file.timezone,
    DASHBOARD_PORT: '0',
    LOG_LEVEL: 'silent',
    // The scripted model costs nothing and has no price: a pack's USD cap must not refuse it.
    UNKNOWN_PRICE: 'allow',
  });
  const clock = fixedClock(Date.parse(file.now));
  const script = createScriptedModel();
  const channel = createTestChannel(PLATFORM);
  const edge = {
    platform: PLATFORM,
    name: 'the test chat',
    connect: () => ({ platform: PLATFORM, channel, acknowledge: () => {} }),
  };
  const core = createCore(config, [edge], {
    clock,
    chatModel: script.model,
    logDestination: { write: () => {} },
    // Offline: the pack's MCP servers are not started, and a call of their tools is an error.
    mcpHub: unavailableHub('MCP servers do not run in `satchel pack test`'),
  });
  return { core, clock, channel, script, home };
}

/** Runs one test; resolves with its unmet expectations, each prefixed with its turn. */
export async function runPackTest(
  packDir: string,
  packName: string,
  file: TestFile,
  test: PackTest,
): Promise<string[]> {
  const r = rig(packDir, file);
  try {
    if (!r.core.packs.get(packName))
      return ['the pack did not load (run npx satchel pack validate)'];
    r.core.router.resolve(CHAT, packName);
    const failures: string[] = [];
    let waiting = false;
    for (const [i, turn] of test.turns.entries()) {
      const next = test.turns[i + 1];
      const run = await runTurn(r, { packName, timezone: file.timezone }, turn, {
        index: i,
        waiting,
        pressNext: next !== undefined && 'press' in next,
      });
      failures.push(...run.failures.map((f) => `turn ${i + 1}: ${f}`));
      if (run.ended === 'stopped') {
        const left = test.turns.length - i - 1;
        if (left > 0) failures.push(`the ${left} turn(s) after turn ${i + 1} were not run`);
        break;
      }
      waiting = run.ended === 'asked';
    }
    return failures;
  } finally {
    await r.core.stop(async () => {});
    rmSync(r.home, { recursive: true, force: true });
  }
}

/**
 * How a turn ended: its work `done`; `asked`, an `ask_user` question waiting for the press
 * the next turn makes; or `stopped`, the test cannot go on (a press that found no button).
 */
type Ended = 'done' | 'asked' | 'stopped';

interface TurnPlan {
  index: number;
  /** The turn before it left a question waiting: this turn's press answers it. */
  waiting: boolean;
  /** The next turn presses a button: a question this turn asks may wait for it. */
  pressNext: boolean;
}

/**
 * One turn: the user's message, or the press of a button, then what it left behind. A
 * turn that asks a question (`ask_user`) ends when the question is shown, the agent's turn
 * waiting for it; the next turn's press answers it and carries the agent's turn on, with
 * that turn's scripted steps. Its model calls are the scripted model's requests in it.
 */
async function runTurn(
  r: Rig,
  pack: { packName: string; timezone: string },
  turn: Turn,
  plan: TurnPlan,
): Promise<{ failures: string[]; ended: Ended }> {
  // Turns without their own time follow a minute apart.
  r.clock.set(turn.now ? Date.parse(turn.now) : r.clock.now() + (plan.index === 0 ? 0 : 60_000));
  r.script.script(turn.model, plan.waiting);
  const before = { sent: r.channel.sent(CHAT).length, notices: r.channel.notices().length };
  const asked = r.channel.nextQuestion().then(() => 'asked' as const);
  const place = { address: CHAT, turn: plan.index + 1, at: r.clock.now() };
  try {
    r.core.pipeline.accept(
      'press' in turn
        ? pressEvent(turn.press, r.channel.lastKeyboard(CHAT), place)
        : messageEvent(turn.user, place),
    );
  } catch (error) {
    // The press found no button: a question left waiting will never be answered.
    if (plan.waiting) await abandon(r);
    return { failures: [(error as Error).message], ended: 'stopped' };
  }
  let ended: Ended = await Promise.race([drained(r.core).then(() => 'done' as const), asked]);
  const failures: string[] = [];
  if (ended === 'asked') {
    await r.core.outbox.idle();
    if (!plan.pressNext) {
      // Nobody will press a button here: end the turn rather than wait for ever.
      await abandon(r);
      ended = 'done';
      failures.push(
        'the turn asked a question (ask_user) and waits for a press: add a `press:` turn after it, whose `model` holds the steps after the answer',
      );
    }
  }
  failures.push(...unmet(turn.expect, outcome(r, pack, before)));
  const unused = r.script.unused();
  if (unused > 0)
    failures.push(
      `model: the turn ended with ${unused} scripted step(s) unused${ended === 'asked' ? " (it waits for a press: the steps after the answer go in the press turn's model)" : ''}`,
    );
  return { failures, ended };
}

/** What the turn left behind: what the user was shown since `before`, the calls, the pack's data. */
function outcome(
  r: Rig,
  { packName, timezone }: { packName: string; timezone: string },
  before: { sent: number; notices: number },
): TurnOutcome {
  const shown = [
    ...r.channel.sent(CHAT).slice(before.sent),
    ...r.channel.notices().slice(before.notices),
  ];
  return {
    reply: shown.join('\n'),
    calls: r.script.calls(),
    seen: r.script.seen(),
    newest: r.script.newest(),
    query: (sql, params) =>
      readOnly(r.core.packs.storage(packName).dbFile, sql, params, dateParams(r.clock, timezone)),
    jobs: () =>
      r.core.store.db
        .select({ n: count() })
        .from(jobs)
        .where(and(eq(jobs.pack, packName), eq(jobs.source, 'tool')))
        .get()?.n ?? 0,
  };
}

/** Ends a turn that waits for a press nobody will make. */
async function abandon(r: Rig): Promise<void> {
  r.core.pipeline.abortAll();
  await drained(r.core);
}

/** Lets the pipeline take what was accepted, then waits until the turn and its sends are done. */
async function drained(core: Core): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await core.pipeline.idle();
  await core.outbox.idle();
}

/** An `expect.db` query, with the date parameters at the turn's time, as db_query has them. */
function readOnly(
  file: string,
  sql: string,
  params: readonly unknown[],
  dates: DateParams,
): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params, { ...dates }) as Record<string, unknown>[];
  } catch (error) {
    throw new Error(explainQueryError((error as Error).message), { cause: error });
  } finally {
    db.close();
  }
}
