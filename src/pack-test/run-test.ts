import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import { parseConfig } from '../config/config.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { Address, InboundEvent } from '../core/types.ts';
import { type Core, createCore } from '../core-app.ts';
import { unavailableHub } from '../mcp/default-hub.ts';
import { jobs } from '../store/schema.ts';
import { Database } from '../store/sqlite.ts';
import { createTestChannel, type TestChannel } from './channel.ts';
import { unmet } from './expect.ts';
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
    for (const [i, turn] of test.turns.entries()) {
      const found = await runTurn(r, packName, turn, i);
      failures.push(...found.map((f) => `turn ${i + 1}: ${f}`));
    }
    return failures;
  } finally {
    await r.core.stop(async () => {});
    rmSync(r.home, { recursive: true, force: true });
  }
}

async function runTurn(r: Rig, packName: string, turn: Turn, index: number): Promise<string[]> {
  // Turns without their own time follow a minute apart.
  r.clock.set(turn.now ? Date.parse(turn.now) : r.clock.now() + (index === 0 ? 0 : 60_000));
  r.script.script(turn.model);
  const before = r.channel.sent(CHAT).length;
  const buttons = r.channel.nextButtons().then(() => 'asked' as const);
  r.core.pipeline.accept(message(turn.user, index, r.clock.now()));
  if ((await Promise.race([drained(r.core).then(() => 'done' as const), buttons])) === 'asked') {
    // Nobody will press a button here: end the turn rather than wait for ever.
    r.core.pipeline.abortAll();
    await drained(r.core);
    return [
      'the turn showed buttons and waited for a press (ask_user): a test cannot answer one; script the steps after the answer instead',
    ];
  }
  const failures = unmet(turn.expect, {
    reply: r.channel.sent(CHAT).slice(before).join('\n'),
    calls: r.script.calls(),
    seen: r.script.seen(),
    query: (sql, params) => readOnly(r.core.packs.storage(packName).dbFile, sql, params),
    jobs: () =>
      r.core.store.db
        .select({ n: count() })
        .from(jobs)
        .where(and(eq(jobs.pack, packName), eq(jobs.source, 'tool')))
        .get()?.n ?? 0,
  });
  const unused = r.script.unused();
  if (unused > 0) failures.push(`model: the turn ended with ${unused} scripted step(s) unused`);
  return failures;
}

/** `/name args` at the start of a message, as the terminal reads a command. */
const COMMAND = /^\/([A-Za-z0-9_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/;

/** The user's message: a command (`/review`) as a command, like the bot's edges send it. */
function message(text: string, index: number, at: number): InboundEvent {
  const command = COMMAND.exec(text.trim());
  return {
    origin: { platform: PLATFORM, keys: [`turn-${index + 1}`] },
    address: CHAT,
    chatType: 'private',
    senderId: '1',
    receivedAt: at,
    ...(command
      ? { kind: 'command' as const, command: command[1]!.toLowerCase(), args: command[2] ?? '' }
      : { kind: 'text' as const, text }),
  };
}

/** Lets the pipeline take what was accepted, then waits until the turn and its sends are done. */
async function drained(core: Core): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await core.pipeline.idle();
  await core.outbox.idle();
}

function readOnly(
  file: string,
  sql: string,
  params: readonly unknown[],
): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
