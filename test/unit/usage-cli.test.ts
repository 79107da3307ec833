import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createUsageCommand, usageCommand } from '../../src/cli/usage.ts';
import type { CliIo } from '../../src/core/cli-io.ts';
import { people } from '../../src/store/schema.ts';
import { usd as usdText } from '../../src/usage/money.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';
import { TEST_MODELS_YAML } from '../support/catalog.ts';
import {
  SEED_CAPS,
  SEED_NOW,
  SEED_TIMEZONE,
  seedDashboard,
  seededCoreStore,
  seedLedger,
  tempCoreStore,
  UNKNOWN_MODEL,
} from '../support/usage-seed.ts';

const clock = { now: () => SEED_NOW, setTimeout: () => 0 as never, clearTimeout: () => {} };
const TOKEN = 'cli-test-token-0123';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `satchel usage …` in-process with captured output. */
async function run(args: string[], env: Record<string, string | undefined>, cwd = tmpdir()) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { out: '', err: '' };
  stdout.on('data', (c) => (chunks.out += c));
  stderr.on('data', (c) => (chunks.err += c));
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env, cwd };
  const code = await createUsageCommand({ clock }).run(args, io);
  return { code, ...chunks };
}

/** A seeded SATCHEL_HOME whose writable store stays open, as while the bot runs. */
function runningHome() {
  const env = seededCoreStore();
  cleanups.push(() => env.close());
  // The owner's catalog the seed was priced with: the cache savings use it.
  writeFileSync(path.join(env.home, 'models.yaml'), TEST_MODELS_YAML);
  return {
    home: env.home,
    env: {
      SATCHEL_HOME: env.home,
      SATCHEL_TIMEZONE: SEED_TIMEZONE,
      QUOTA_DAILY_TOKENS: String(SEED_CAPS.dailyTokens),
      QUOTA_SESSION_TOKENS: String(SEED_CAPS.sessionTokens),
      QUOTA_DAILY_USD: String(SEED_CAPS.dailyUsd),
    },
  };
}

/** The body of GET /api/usage from a dashboard on the same home, clock and caps. */
async function apiBody(home: string, query = ''): Promise<string> {
  const { dashboard, reader } = seedDashboard(home, clock, TOKEN);
  const started = await dashboard.start();
  cleanups.push(async () => {
    await dashboard.stop();
    reader.close();
  });
  const base = started!.url.slice(0, started!.url.indexOf('?'));
  const response = await fetch(`${base}api/usage${query}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return response.text();
}

describe('satchel usage', () => {
  it('--json prints exactly what GET /api/usage returns, with no Telegram token', async () => {
    const { home, env } = runningHome();
    const json = await run(['--json'], env);
    expect(json.code).toBe(0);
    expect(json.err).toBe('');
    expect(json.out).toBe(await apiBody(home));
    const week = await run(['--json', '--days', '7'], env);
    expect(week.out).toBe(await apiBody(home, '?days=7'));
    expect(JSON.parse(week.out).days).toBe(7);
  });

  it('prints the totals, caps, unknown prices and turns as a table', async () => {
    const { env } = runningHome();
    const api = JSON.parse((await run(['--json'], env)).out);
    const { code, out } = await run([], env);
    expect(code).toBe(0);
    const line = (label: string) => out.split('\n').find((l) => l.trimStart().startsWith(label));
    const today = line('today')!
      .trim()
      .split(/\s{2,}/);
    expect(today).toEqual([
      'today',
      String(api.today.calls),
      api.today.input_tokens.toLocaleString('en-US'),
      api.today.output_tokens.toLocaleString('en-US'),
      api.today.tokens.toLocaleString('en-US'),
      expect.stringMatching(/^\$0\.0441 \+ 1 unpriced$/),
      `${Math.round((100 * api.today.cached_input_tokens) / api.today.input_tokens)}%`,
      usdText(api.today.cache_saved_usd),
    ]);
    expect(api.today.cached_input_tokens).toBeGreaterThan(0);
    expect(line('last 7 days')).toContain(api.last_7_days.tokens.toLocaleString('en-US'));
    expect(line('last 30 days')).toContain('$7.30 + 2 unpriced');
    expect(out).toContain(`tokens: 87,000 of 200,000 (113,000 left)`);
    expect(out).toContain(`! Unknown prices (last 30 days)`);
    expect(out).toContain(`openai:${UNKNOWN_MODEL}: 2 call(s)`);
    const model = out
      .split('\n')
      .filter((l) => l.trimStart().startsWith(`openai:${UNKNOWN_MODEL} `));
    // Its cost is unknown, and so is what a cache saved on it: nothing is claimed.
    expect(model).toEqual([expect.stringMatching(/ unknown {2,}\S+ {2,}\$0$/)]);
    expect(out).toContain('schedule');
    expect(out).toContain('Recent turns');
  });

  it('shows what each person spent, today beside the last 30 days, and each turn’s person', async () => {
    const env = tempCoreStore();
    cleanups.push(() => env.close());
    writeFileSync(path.join(env.home, 'models.yaml'), TEST_MODELS_YAML);
    const DAY = 24 * 60;
    seedLedger(env.store, [
      { ago: 30, pack: 'vocab', turn: 't-owner', person: 'owner', input: 10_000, output: 1_000 },
      { ago: 20, pack: 'vocab', turn: 't-gwen', person: '222', input: 50_000, output: 5_000 },
      { ago: 9 * DAY, pack: 'journal', turn: 't-sam', person: '333', input: 4_000, output: 400 },
      { ago: 40 * DAY, pack: 'journal', turn: 't-old', person: '333', input: 9_000, output: 0 },
    ]);
    for (const [id, name] of [
      ['owner', 'owner'],
      ['222', 'Gwen'],
      ['333', 'Sam'],
    ] as const)
      env.store.db
        .insert(people)
        .values({ id, name, via: id === 'owner' ? 'owner' : 'listed', createdAt: SEED_NOW })
        .run();
    const vars = { SATCHEL_HOME: env.home, SATCHEL_TIMEZONE: SEED_TIMEZONE };
    const api = JSON.parse((await run(['--json'], vars)).out) as UsageOverview;
    const { code, out } = await run([], vars);
    expect(code).toBe(0);

    const lines = out.split('\n');
    const start = lines.indexOf('By person (today · last 30 days)');
    const section = lines
      .slice(start + 1, lines.indexOf('', start))
      .map((l) => l.trim().split(/\s{2,}/));
    const spent = (person: string, period: 'today' | 'last_30_days') => {
      const row = api.by_person[period].find((p) => p.person === person);
      return row ? usdText(row.cost_usd!) : '$0';
    };
    expect(section).toEqual([
      ['person', 'today', 'calls', 'tokens', 'cost'],
      [
        expect.stringMatching(/^-+$/),
        expect.any(String),
        expect.any(String),
        expect.any(String),
        expect.any(String),
      ],
      ['Gwen (222)', spent('222', 'today'), '1', '55,000', spent('222', 'last_30_days')],
      ['owner', spent('owner', 'today'), '1', '11,000', spent('owner', 'last_30_days')],
      // Sam spent nothing today; his call 40 days ago is in no period.
      ['Sam (333)', '$0', '1', '4,400', spent('333', 'last_30_days')],
    ]);
    expect(spent('222', 'today')).not.toBe('$0');

    const turns = lines.slice(lines.indexOf('Recent turns') + 3).filter(Boolean);
    expect(turns.map((l) => l.trim().split(/\s{2,}/)[3])).toEqual(['222', 'owner', '333', '333']);
  });

  it('reads SATCHEL_HOME from .env in the working directory', async () => {
    const { env } = runningHome();
    const cwd = mkdtempSync(path.join(tmpdir(), 'satchel-cwd-'));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    writeFileSync(path.join(cwd, '.env'), `SATCHEL_HOME=${env.SATCHEL_HOME}\n`);
    const { code, out } = await run(['--json'], { SATCHEL_TIMEZONE: SEED_TIMEZONE }, cwd);
    expect(code).toBe(0);
    expect(JSON.parse(out).today.calls).toBe(7);
  });

  it('explains a missing database, bad options and shows --help', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'satchel-empty-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const missing = await run([], { SATCHEL_HOME: empty });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`${path.join(empty, 'satchel.db')} does not exist`);
    const days = await run(['--days', '0'], { SATCHEL_HOME: empty });
    expect(days).toMatchObject({ code: 2, out: '' });
    expect(days.err).toContain('--days must be a whole number from 1 to 366');
    const unknown = await run(['--verbose'], {});
    expect(unknown.code).toBe(2);
    const help = await run(['--help'], {});
    expect(help).toMatchObject({ code: 0, out: usageCommand.help });
    expect(usageCommand.path).toEqual(['usage']);
  });
});
