import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, vi } from 'vitest';
import { type App, type AppOptions, createApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';

export const ALLOWED_USER = 111;
export const STRANGER = 999;
export const TEST_OPENAI_KEY = 'sk-test-openai-key-0123456789';
/** Two small packs for routing tests: alpha (Alpha Garden) and beta (Beta Books). */
export const FIXTURE_PACKS = fileURLToPath(new URL('../fixtures/packs', import.meta.url));

export type LogLine = Record<string, unknown> & { event?: string; level: number; msg?: string };

/** Everything an end-to-end test needs: the fakes, a fresh SATCHEL_HOME and the app on them. */
export interface Harness {
  tg: FakeTelegram;
  model: FakeModel;
  home: string;
  env: Record<string, string>;
  app: App;
  logs(event?: string): LogLine[];
  /** Rows of a core table (raw SQL, snake_case columns). */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  /** Runs a write on the core database (to plant a state). */
  exec(sql: string, ...params: unknown[]): void;
  /** Stops the app (graceful); `restart` starts it again. */
  stop(): Promise<void>;
  /** Stops the app (graceful) if running and starts a new one on the same home and fakes. */
  restart(): Promise<void>;
  /** Stops the app and the fakes and removes the home; again, it does nothing. */
  close(): Promise<void>;
}

type Fakes = { tg: FakeTelegram; model: FakeModel };

export async function startHarness(
  overrides: Record<string, string> | ((fakes: Fakes) => Record<string, string>) = {},
  options: {
    beforeStart?: (tg: FakeTelegram, model: FakeModel) => void;
    app?: Omit<AppOptions, 'logDestination'>;
  } = {},
): Promise<Harness> {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  options.beforeStart?.(tg, model);
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-test-'));
  const env: Record<string, string> = {
    TELEGRAM_BOT_TOKEN: TEST_TOKEN,
    TELEGRAM_API_ROOT: tg.apiRoot,
    ALLOWED_USER_IDS: String(ALLOWED_USER),
    SATCHEL_HOME: home,
    SATCHEL_PACKS: path.join(home, 'no-packs'),
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${model.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    LLM_TIMEOUT_MS: '2000',
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: 'UTC',
    DASHBOARD_PORT: '0',
    LOG_LEVEL: 'debug',
    ...(typeof overrides === 'function' ? overrides({ tg, model }) : overrides),
  };
  const lines: LogLine[] = [];
  const boot = async () => {
    const app = createApp(parseConfig(env), {
      announce: () => {},
      ...options.app,
      logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    await app.start();
    return app;
  };
  let app = await boot();
  let running = true;
  let closed = false;

  const harness: Harness = {
    tg,
    model,
    home,
    env,
    get app() {
      return app;
    },
    logs: (event) => (event ? lines.filter((l) => l.event === event) : [...lines]),
    rows: <T>(sql: string, ...params: unknown[]) =>
      app.store.sqlite.prepare(sql).all(...params) as T[],
    exec: (sql: string, ...params: unknown[]) => {
      app.store.sqlite.prepare(sql).run(...params);
    },
    async stop() {
      if (running) await app.stop();
      running = false;
    },
    async restart() {
      if (running) await app.stop();
      app = await boot();
      running = true;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (running) await app.stop();
      running = false;
      await tg.stop();
      await model.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return harness;
}

/** The harness of the test running now: see `harnessPerTest`. */
export interface TestHarness extends Harness {
  /** Starts a harness (as `startHarness`) that this object stands for until the next start. */
  start(...args: Parameters<typeof startHarness>): Promise<Harness>;
  /** Sends `text` from the allowed user in their private chat; returns its update_id. */
  say(text: string): number;
}

/**
 * The preamble of an end-to-end test file: `const h = harnessPerTest();` at its top, then
 * `await h.start(env)` in each test, which the harness's members then reach. Every harness
 * a test started is closed after it, whether it passed or not.
 */
export function harnessPerTest(): TestHarness {
  let started: Harness[] = [];
  afterEach(async () => {
    const open = started;
    started = [];
    for (const harness of open) await harness.close();
  });
  const current = (): Harness => {
    const last = started.at(-1);
    if (!last) throw new Error('harnessPerTest: the test has not started a harness');
    return last;
  };
  const extra: Pick<TestHarness, 'start' | 'say'> = {
    async start(...args) {
      const harness = await startHarness(...args);
      started.push(harness);
      return harness;
    },
    say: (text) => current().tg.text({ userId: ALLOWED_USER, text }),
  };
  return harnessVia(current, extra);
}

/**
 * A harness that stands for whichever one `current` gives at the time of each use (with
 * `extra` members): for a file's preamble, where the harness starts in a hook after the
 * tests' closures were made.
 */
export function harnessVia<T extends object>(current: () => Harness, extra: T): Harness & T {
  return {
    ...extra,
    get tg() {
      return current().tg;
    },
    get model() {
      return current().model;
    },
    get home() {
      return current().home;
    },
    get env() {
      return current().env;
    },
    get app() {
      return current().app;
    },
    logs: (event) => current().logs(event),
    rows: <R>(sql: string, ...params: unknown[]) => current().rows<R>(sql, ...params),
    exec: (sql, ...params) => current().exec(sql, ...params),
    stop: () => current().stop(),
    restart: () => current().restart(),
    close: () => current().close(),
  };
}

/** Waits until `updates` stored updates are done and nothing is left to send. */
export async function settled(harness: Harness, updates: number, timeout = 10_000): Promise<void> {
  await vi.waitFor(
    () => {
      const done = harness.rows("SELECT 1 FROM inbound_updates WHERE status = 'done'");
      expect(done).toHaveLength(updates);
      expect(harness.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0);
    },
    { timeout, interval: 25 },
  );
}

/**
 * Waits until update `updateId` is done and nothing is left to send. (Counting done updates
 * does not work across a day: the inbox prunes rows older than 24 h.)
 */
export async function handled(harness: Harness, updateId: number): Promise<void> {
  await vi.waitFor(
    () => {
      const row = harness.rows('SELECT status FROM inbound_updates WHERE update_id = ?', updateId);
      expect(row).toEqual([{ status: 'done' }]);
      expect(harness.rows("SELECT 1 FROM outbox WHERE status = 'pending'")).toHaveLength(0);
    },
    { timeout: 10_000, interval: 25 },
  );
}

const packDirs: string[] = [];
afterEach(() => {
  for (const dir of packDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A packs directory (removed after the test) with copies of the named fixture packs;
 * `extraManifest` is appended to each copied pack.yml.
 */
/** One fixture pack with its `tools` replaced (and `extraManifest` appended). */
export function fixtureWithTools(name: string, tools: string[], extraManifest = ''): string {
  const dir = fixturePacks([name], extraManifest);
  const manifest = path.join(dir, name, 'pack.yml');
  const text = readFileSync(manifest, 'utf8').replace(
    /^tools: .*$/m,
    `tools: [${tools.join(', ')}]`,
  );
  writeFileSync(manifest, text);
  return dir;
}

export function fixturePacks(names: string[], extraManifest = ''): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-packs-'));
  packDirs.push(dir);
  for (const name of names) {
    cpSync(path.join(FIXTURE_PACKS, name), path.join(dir, name), { recursive: true });
    const manifest = path.join(dir, name, 'pack.yml');
    if (extraManifest) writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}${extraManifest}`);
  }
  return dir;
}
