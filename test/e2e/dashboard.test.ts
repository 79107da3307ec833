import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createUsageCommand } from '../../src/cli/usage.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { Logger } from '../../src/core/ports.ts';
import { createDashboard, type Dashboard } from '../../src/dashboard/server.ts';
import { type CoreReader, openCoreReader } from '../../src/store/read-only.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';
import { testCatalog } from '../support/catalog.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { SEED_CAPS, SEED_NOW, SEED_TIMEZONE, seededCoreStore } from '../support/usage-seed.ts';

const TOKEN = 'dashboard-test-token-0123';
const UNKNOWN_MODEL = 'mystery-model-7';

interface Logged {
  level: string;
  event?: string;
  msg?: string;
}

function recordingLog(lines: Logged[] = []): Logger & { lines: Logged[] } {
  const at =
    (level: string) =>
    (obj: object, msg?: string): void =>
      void lines.push({ level, ...(obj as { event?: string }), ...(msg ? { msg } : {}) });
  const log = {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => log,
  };
  return log;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A dashboard over a read-only connection to `home`, stopped after the test. */
async function serve(
  home: string,
  options: { clock?: { now(): number }; timezone?: string; health?: () => object } = {},
) {
  const reader = openCoreReader(home) as CoreReader;
  const log = recordingLog();
  const dashboard = createDashboard({
    db: reader.db,
    catalog: testCatalog(),
    config: { port: 0, token: TOKEN, caps: SEED_CAPS, timezone: options.timezone ?? SEED_TIMEZONE },
    clock: fixedClock(options.clock ?? { now: () => SEED_NOW }),
    log,
    ...(options.health ? { health: options.health } : {}),
  });
  const started = await dashboard.start();
  cleanups.push(async () => {
    await dashboard.stop();
    reader.close();
  });
  const url = started!.url;
  const base = url.slice(0, url.indexOf('?'));
  return { url, base, port: Number(new URL(base).port), dashboard, log };
}

function seededHome(): string {
  const env = seededCoreStore();
  cleanups.push(() => env.close());
  return env.home;
}

/** The dashboard reads only `now()` of its clock. */
const fixedClock = (source: { now(): number }): Clock => ({
  now: () => source.now(),
  setTimeout: () => {
    throw new Error('the dashboard sets no timer');
  },
  clearTimeout: () => {},
});

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers, redirect: 'manual' });
const bearer = { authorization: `Bearer ${TOKEN}` };

describe('GET /api/usage after real turns', () => {
  const h = harnessPerTest();

  it('matches the ledger rows exactly, flags the unpriced model and cuts days locally', async () => {
    // 23:50 on 22 November in Auckland (UTC+13); 10:50 UTC.
    const clock = new JumpClock(Date.UTC(2026, 10, 22, 10, 50));
    const zone = 'Pacific/Auckland';
    await h.start(
      { SATCHEL_PACKS: fixturePacks(['alpha']), SATCHEL_TIMEZONE: zone },
      { app: { clock } },
    );
    h.model.enqueue({ text: 'one', usage: { input: 100, output: 20 } });
    h.say('first');
    await settled(h, 1);
    clock.advance(20 * 60_000); // 00:10 on the 23rd in Auckland, still the 22nd in UTC
    h.model.enqueue({ text: 'two', usage: { input: 300, cached: 100, output: 50 } });
    h.say('second');
    await settled(h, 2);
    h.env.LLM_MODEL = UNKNOWN_MODEL;
    await h.restart();
    h.model.enqueue({ text: 'three', usage: { input: 40, output: 4 } });
    h.say('third');
    await settled(h, 3);

    const rows = h.rows<{
      ts: number;
      day: string;
      model: string;
      cost_usd: number | null;
      turn_id: string;
    }>('SELECT ts, day, model, cost_usd, turn_id FROM usage_events ORDER BY id');
    expect(rows.map((r) => r.day)).toEqual(['2026-11-22', '2026-11-23', '2026-11-23']);
    expect(rows.map((r) => new Date(r.ts).toISOString().slice(0, 10))).toEqual([
      '2026-11-22',
      '2026-11-22',
      '2026-11-22',
    ]);
    expect(rows[2]?.cost_usd).toBeNull();

    const { base } = await serve(h.home, { clock, timezone: zone });
    const response = await get(`${base}api/usage`, bearer);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as UsageOverview;

    expect(body.as_of_day).toBe('2026-11-23');
    expect(body.today).toEqual({
      calls: 2,
      input_tokens: 340,
      // The second call's 100 cached tokens: a part of its 300 input tokens.
      cached_input_tokens: 100,
      output_tokens: 54,
      tokens: 394,
      cost_usd: expect.closeTo(rows[1]!.cost_usd!, 9),
      unknown_price_calls: 1,
      // 100 tokens at $0.40 less $0.10 per million.
      cache_saved_usd: 0.00003,
    });
    expect(body.last_7_days).toEqual({
      calls: 3,
      input_tokens: 440,
      cached_input_tokens: 100,
      output_tokens: 74,
      tokens: 514,
      cost_usd: expect.closeTo(rows[0]!.cost_usd! + rows[1]!.cost_usd!, 9),
      unknown_price_calls: 1,
      cache_saved_usd: 0.00003,
    });
    expect(body.last_30_days).toEqual(body.last_7_days);
    expect(body.by_day.map((d) => [d.day, d.pack, d.calls])).toEqual([
      ['2026-11-22', 'alpha', 1],
      ['2026-11-23', 'alpha', 2],
    ]);
    expect(body.by_model).toEqual([
      expect.objectContaining({
        provider: 'openai',
        model: 'gpt-4.1-mini',
        calls: 2,
        cached_input_tokens: 100,
        cache_saved_usd: 0.00003,
      }),
      expect.objectContaining({ model: UNKNOWN_MODEL, calls: 1, cost_usd: null }),
    ]);
    expect(body.by_pack).toEqual([expect.objectContaining({ pack: 'alpha', calls: 3 })]);
    expect(body.unknown_price_models).toEqual([
      { provider: 'openai', model: UNKNOWN_MODEL, calls: 1, tokens: 44 },
    ]);
    expect(body.recent_turns.map((t) => t.turn_id)).toEqual(rows.map((r) => r.turn_id).reverse());
    expect(body.recent_turns[0]).toMatchObject({
      pack: 'alpha',
      chat: String(ALLOWED_USER),
      calls: 1,
      tokens: 44,
      cost_usd: null,
      source: 'chat',
    });
    expect(body.caps).toMatchObject({
      daily_tokens: SEED_CAPS.dailyTokens,
      session_tokens: SEED_CAPS.sessionTokens,
      daily_usd: SEED_CAPS.dailyUsd,
      used_today: { tokens: 394 },
      left_today: { tokens: SEED_CAPS.dailyTokens - 394 },
    });
  });
});

/** `satchel usage --json` on `home`, in-process: the body it prints. */
async function usageJson(home: string, clock: { now(): number }): Promise<UsageOverview> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c) => (out += c));
  const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), cwd: home };
  const env = { SATCHEL_HOME: home, SATCHEL_TIMEZONE: 'UTC' };
  const code = await createUsageCommand({ clock: fixedClock(clock) }).run(['--json'], {
    ...io,
    env,
  });
  expect(code).toBe(0);
  return JSON.parse(out) as UsageOverview;
}

describe('what counts as a call', () => {
  const h = harnessPerTest();

  it('a call counts when something came back: a stopped stream with its tokens, not a refused call or a stop before any answer', async () => {
    // The real clock: the streamed answer shows in a draft on its own timers.
    const clock = { now: () => Date.now() };
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), SATCHEL_TIMEZONE: 'UTC' });
    h.say('/usage footer on');
    await settled(h, 1);
    // The provider refuses the request: nothing comes back.
    h.model.enqueue({ status: 400 });
    h.say('refused');
    await settled(h, 2);
    // Stopped before the provider sent a byte.
    h.model.enqueue({ hang: true });
    h.say('no answer yet');
    await h.model.waitForRequest(2);
    h.say('/stop');
    await settled(h, 4);
    // Stopped while the answer streams: the provider has billed what it wrote.
    h.model.enqueue({ text: 'Tomatoes want deep watering ', trickle: true, chunkDelayMs: 50 });
    h.say('tell me about tomatoes');
    // Some of the answer has reached the chat (a draft shows it).
    await h.tg.waitForCall('sendMessageDraft', (c) => String(c.params.text).includes('w1'));
    h.say('/stop');
    await settled(h, 6);
    h.model.enqueue({ text: 'one', usage: { input: 80, output: 30 } });
    h.say('first');
    await settled(h, 7);

    const rows = h.rows<{
      ok: number;
      error: string | null;
      tokens: number;
      counted: number;
      day: string;
    }>(
      'SELECT ok, error, input_tokens + output_tokens AS tokens, counted, day FROM usage_events ORDER BY id',
    );
    expect(rows.map(({ tokens, day, ...r }) => r)).toEqual([
      { ok: 0, error: expect.stringContaining('400'), counted: 0 },
      { ok: 0, error: 'aborted', counted: 0 },
      { ok: 0, error: 'aborted', counted: 1 },
      { ok: 1, error: null, counted: 1 },
    ]);
    expect(rows.map((r) => r.tokens)).toEqual([0, 0, expect.any(Number), 110]);
    const stopped = rows[2]!.tokens;
    expect(stopped).toBeGreaterThan(0);
    const today = stopped + 110;
    const count = (n: number) => n.toLocaleString('en-US');
    // The footer under the last answer: its own call, and today's two.
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toMatch(
      new RegExp(`This answer: 110 tokens, .* · today: ${count(today)} tokens, `),
    );
    h.say('/usage');
    await settled(h, 8);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(
      `Today (${rows[3]!.day}, UTC): 2 model call(s)`,
    );

    const { base } = await serve(h.home, { clock, timezone: 'UTC' });
    const body = (await (await get(`${base}api/usage`, bearer)).json()) as UsageOverview;
    expect(body.today).toMatchObject({ calls: 2, tokens: today, unknown_price_calls: 0 });
    expect(body.by_model).toEqual([
      expect.objectContaining({ model: 'gpt-4.1-mini', calls: 2, tokens: today }),
    ]);
    expect(body.by_day).toEqual([expect.objectContaining({ calls: 2, tokens: today })]);
    expect(body.recent_turns.map((t) => [t.calls, t.tokens])).toEqual([
      [1, 110],
      [1, stopped],
      [0, 0],
      [0, 0],
    ]);
    const cli = await usageJson(h.home, clock);
    expect(cli.today).toEqual(body.today);
    expect(cli.by_model).toEqual(body.by_model);
  });
});

describe('dashboard auth', () => {
  it('answers 401 with no data without the right token, in any other case or form', async () => {
    const { base } = await serve(seededHome());
    const attempts = [
      get(`${base}api/usage`),
      get(`${base}api/usage`, { authorization: 'Bearer wrong-token' }),
      get(`${base}api/usage`, { authorization: `Bearer ${TOKEN.toUpperCase()}` }),
      get(`${base}api/usage`, { authorization: `Basic ${TOKEN}` }),
      get(`${base}api/usage`, { cookie: `satchel_dashboard_1=${TOKEN}` }),
      get(`${base}api/usage?token=${TOKEN.toUpperCase()}`),
      get(`${base}api/usage?token=`),
      get(base),
      get(`${base}app.js`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(response.headers.get('set-cookie')).toBeNull();
      const text = await response.text();
      expect(text).not.toContain('calls');
      expect(text).toContain('Unauthorized');
    }
  });

  it('takes ?token= once, then an HttpOnly SameSite=Strict cookie for 30 days', async () => {
    const { url, base, port } = await serve(seededHome());
    const signIn = await get(url);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/');
    const cookie = signIn.headers.get('set-cookie')!;
    expect(cookie).toBe(
      `satchel_dashboard_${port}=${TOKEN}; Max-Age=2592000; HttpOnly; SameSite=Strict; Path=/`,
    );
    const jar = { cookie: cookie.split(';')[0]! };

    const page = await get(base, jar);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    // Everything the page loads is its own: no scheme, no other host.
    // (What it loads: scripts, style sheets, icons; a link to another page is not loaded.)
    const refs = [...html.matchAll(/<(?:script|link|img)\b[^>]*(?:src|href)="([^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^(\/[\w.-]+|data:,)$/);
    for (const ref of refs.filter((r) => r?.startsWith('/'))) {
      expect((await get(`${base}${ref!.slice(1)}`, jar)).status).toBe(200);
    }
    const api = await get(`${base}api/usage`, jar);
    expect(api.status).toBe(200);
    expect(((await api.json()) as UsageOverview).today.calls).toBe(7);

    const deep = await get(`${base}api/usage?days=7&token=${TOKEN}`);
    expect(deep.status).toBe(303);
    expect(deep.headers.get('location')).toBe('/api/usage?days=7');
  });

  it('takes a Bearer header, and checks the days parameter', async () => {
    const { base } = await serve(seededHome());
    const week = await get(`${base}api/usage?days=7`, bearer);
    expect(((await week.json()) as UsageOverview).days).toBe(7);
    for (const days of ['0', '367', 'x', '1.5'])
      expect((await get(`${base}api/usage?days=${days}`, bearer)).status).toBe(400);
    const post = await fetch(`${base}api/usage`, { method: 'POST', headers: bearer });
    expect(post.status).toBe(405);
  });

  it('refuses a request for another host name (DNS rebinding)', async () => {
    const { port } = await serve(seededHome());
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/usage',
          headers: { host: `evil.example:${port}`, ...bearer },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe('dashboard server', () => {
  it('listens on 127.0.0.1 only', async () => {
    const { base, port } = await serve(seededHome());
    expect(new URL(base).hostname).toBe('127.0.0.1');
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i!.address);
    for (const address of [...others, '::1']) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: address, port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      });
      expect(refused, `reachable on ${address}`).toBe(true);
    }
  });

  it('logs a clear line and starts nothing when the port is taken', async () => {
    const { port } = await serve(seededHome());
    const reader = openCoreReader(seededHome())!;
    cleanups.push(() => reader.close());
    const log = recordingLog();
    const second: Dashboard = createDashboard({
      db: reader.db,
      catalog: testCatalog(),
      config: { port, token: TOKEN, caps: SEED_CAPS, timezone: SEED_TIMEZONE },
      clock: fixedClock({ now: () => SEED_NOW }),
      log,
    });
    expect(await second.start()).toBeUndefined();
    await second.stop();
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', event: 'dashboard_port_in_use' }),
    ]);
    expect(log.lines[0]?.msg).toContain(`port ${port}`);
    expect(log.lines[0]?.msg).toContain('DASHBOARD_PORT');
  });

  it('answers /healthz without a token, and stops with a page still connected', async () => {
    const { base, dashboard, log } = await serve(seededHome(), {
      health: () => ({ ok: true, uptime_s: 5 }),
    });
    const health = await get(`${base}healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, uptime_s: 5 });
    // A keep-alive connection from a page left open must not hold the shutdown.
    expect((await get(`${base}api/usage`, bearer)).status).toBe(200);
    await dashboard.stop();
    await expect(get(`${base}api/usage`, bearer)).rejects.toThrow();
    expect(log.lines.map((l) => l.event)).toEqual(['dashboard_started']);
  });
});
