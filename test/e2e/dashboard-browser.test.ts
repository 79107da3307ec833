import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dashboard } from '../../src/dashboard/server.ts';
import type { CoreReader } from '../../src/store/read-only.ts';
import { createCalendar } from '../../src/usage/calendar.ts';
import { createLedger } from '../../src/usage/ledger.ts';
import { usd } from '../../src/usage/money.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';
import { testCatalog } from '../support/catalog.ts';
import {
  type ChromiumSession,
  haveChromium,
  launchChromium,
  mustHaveChromium,
  saveScreenshot,
  skipBrowser,
  watchProblems,
} from '../support/chromium.ts';
import {
  SEED_NOW,
  SEED_TIMEZONE,
  seedDashboard,
  seededCoreStore,
  UNKNOWN_MODEL,
} from '../support/usage-seed.ts';

const SCREENSHOT = fileURLToPath(new URL('../../docs/dashboard.png', import.meta.url));
const TOKEN = 'browser-test-token-0123';
const skipped = skipBrowser('dashboard-browser', 'the dashboard');

describe.skipIf(skipped)('the dashboard in a real browser', () => {
  let env: ReturnType<typeof seededCoreStore>;
  let reader: CoreReader;
  let dashboard: Dashboard;
  let url: string;
  let browser: ChromiumSession | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    env = seededCoreStore();
    ({ dashboard, reader } = seedDashboard(env.home, env.clock, TOKEN));
    url = (await dashboard.start())!.url;
    browser = await launchChromium({
      viewport: { width: 1000, height: 700 },
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: SEED_TIMEZONE,
      colorScheme: 'light',
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
    reader?.close();
    env?.close();
  });

  mustHaveChromium();

  it.skipIf(!haveChromium)(
    'renders without errors, loads only from 127.0.0.1, and refreshes itself',
    async () => {
      const page = await browser!.context.newPage();
      const problems = watchProblems(page);
      const requested: string[] = [];
      browser!.context.on('request', (r) => requested.push(r.url()));
      await page.clock.install({ time: SEED_NOW });

      await page.goto(url);
      const api = (await (
        await page.request.get(new URL('/api/usage', url).href)
      ).json()) as UsageOverview;
      const today = page.locator('#periods .card').first();
      await expect
        .poll(() => today.textContent(), { timeout: 10_000 })
        .toContain(usd(api.today.cost_usd!));

      // The token left the address bar for a cookie.
      expect(new URL(page.url()).search).toBe('');
      const text = (await today.textContent())!;
      expect(text).toContain(`${api.today.tokens.toLocaleString('en-US')} tokens`);
      expect(text).toContain(`${api.today.calls} calls`);
      expect(text).toContain(`+ ${api.today.unknown_price_calls} unpriced`);
      const chart = await page.locator('#chart svg').boundingBox();
      expect(chart?.width).toBeGreaterThan(0);
      expect(chart?.height).toBeGreaterThan(0);
      expect(await page.locator('#chart svg rect').count()).toBeGreaterThan(20);
      await expect.poll(() => page.locator('#unknown').textContent()).toContain(UNKNOWN_MODEL);
      expect(await page.locator('#unknown').isVisible()).toBe(true);
      // The banner sends the owner to their catalog file, not to satchel's source.
      const banner = (await page.locator('#unknown').textContent())!;
      expect(banner).toContain('SATCHEL_HOME/models.yaml');
      expect(banner).toContain('npx satchel models');
      expect(banner).not.toContain('src/usage/models.ts');
      expect(await page.locator('#turns tbody tr').count()).toBe(20);
      expect(await page.locator('#by-model').textContent()).toContain('unknown');
      // The cache share per pack, and what each scheduled job cost.
      const vocab = api.by_pack.find((p) => p.pack === 'vocab')!;
      const share = Math.round((100 * vocab.cached_input_tokens) / vocab.input_tokens);
      expect(await page.locator('#by-pack tbody tr', { hasText: 'vocab' }).textContent()).toContain(
        `${share}% · saved ${usd(vocab.cache_saved_usd)}`,
      );
      expect(api.by_job).toMatchObject([{ job_id: 'check01', pack: 'habits', runs: 1, calls: 1 }]);
      const job = (await page.locator('#by-job tbody tr').textContent())!;
      expect(job).toContain('check01 (removed)');
      expect(job).toContain(usd(api.by_job[0]!.cost_usd!));

      saveScreenshot(SCREENSHOT, await page.screenshot({ type: 'png' }));

      // A call booked while the page is open shows up at the next refresh (10 s).
      const ledger = createLedger({
        db: env.store.db,
        clock: env.clock,
        calendar: createCalendar(SEED_TIMEZONE),
        catalog: testCatalog(),
      });
      ledger.record({
        kind: 'llm',
        provider: 'openai',
        model: 'gpt-4.1',
        scope: { pack: 'vocab', chatId: '111', threadId: null, sessionId: 's', turnId: 'live' },
        inputTokens: 1000,
        outputTokens: 0,
        latencyMs: 800,
        ok: true,
      });
      await page.clock.runFor(10_500);
      await expect
        .poll(() => today.textContent(), { timeout: 10_000 })
        .toContain(`${api.today.calls + 1} calls`);

      // A phone-sized screen: nothing wider than the screen.
      await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
      await page.clock.runFor(500);
      // (A string: this project's TypeScript has no DOM types.)
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      expect((await page.locator('#chart svg').boundingBox())?.width).toBeLessThanOrEqual(390);
      await expectEveryColumnOnScreen(page);

      expect(problems).toEqual([]);
      const hosts = new Set(
        requested.filter((r) => !r.startsWith('data:')).map((r) => new URL(r).host),
      );
      expect([...hosts]).toEqual([new URL(url).host]);
      expect(new URL(url).hostname).toBe('127.0.0.1');
    },
    60_000,
  );

  it.skipIf(!haveChromium)(
    'on a 390×844 phone keeps every chart label inside the chart and each cache saving on one line',
    async () => {
      const page = await browser!.context.newPage();
      const problems = watchProblems(page);
      await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
      await page.clock.install({ time: SEED_NOW });
      await page.goto(url);
      await expect.poll(() => page.locator('#by-model').textContent()).toContain('saved');

      const labels = await page.evaluate<{ text: string; left: number; right: number }[]>(`(() => {
        const chart = document.querySelector('#chart svg').getBoundingClientRect();
        return [...document.querySelectorAll('#chart svg text')].map((t) => {
          const box = t.getBoundingClientRect();
          return { text: t.textContent, left: box.left - chart.left, right: chart.right - box.right };
        });
      })()`);
      // The last day's date (SEED_NOW in Berlin) is among them: the one that was cut.
      expect(labels.map((l) => l.text)).toContain('11-22');
      for (const label of labels) {
        expect(label.left, label.text).toBeGreaterThanOrEqual(0);
        expect(label.right, label.text).toBeGreaterThanOrEqual(0);
      }

      const saved = await page.evaluate<{ text: string; height: number; lineHeight: number }[]>(
        `[...document.querySelectorAll('#by-model td, #periods .sub')]
          .filter((e) => e.textContent.includes('saved'))
          .map((e) => {
            const style = getComputedStyle(e);
            const box = e.getBoundingClientRect();
            const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
            return { text: e.textContent, height: box.height - padding, lineHeight: parseFloat(style.lineHeight) };
          })`,
      );
      expect(saved.length).toBeGreaterThan(0);
      for (const line of saved) {
        expect(line.lineHeight, line.text).toBeGreaterThan(0);
        expect(line.height, line.text).toBeCloseTo(line.lineHeight, 0);
      }
      expect(problems).toEqual([]);
    },
    60_000,
  );
});

const PHONE_WIDTH = 390;

interface PhoneTable {
  id: string;
  columns: string[];
  scrolls: boolean;
  cells: { label: string; text: string; left: number; right: number; height: number }[];
}

/**
 * On a phone every column of every table is on screen without scrolling sideways: each row
 * is a card whose lines name their column. Checked on each table's first row.
 */
async function expectEveryColumnOnScreen(page: Page): Promise<void> {
  const tables = await page.evaluate<PhoneTable[]>(`[...document.querySelectorAll('main table')]
    .map((t) => ({
      id: t.id,
      columns: [...t.querySelectorAll('thead th')].map((h) => h.textContent),
      scrolls: t.parentElement.scrollWidth > t.parentElement.clientWidth,
      cells: [...t.querySelectorAll('tbody tr:first-child td')].map((c) => {
        const box = c.getBoundingClientRect();
        const label = getComputedStyle(c, '::before').content;
        return { label, text: c.textContent, left: box.left, right: box.right, height: box.height };
      }),
    }))`);
  expect(tables.map((t) => t.id)).toEqual([
    'by-model',
    'by-pack',
    'by-kind',
    'by-person',
    'by-job',
    'turns',
  ]);
  for (const table of tables) {
    expect({ id: table.id, scrolls: table.scrolls }).toEqual({ id: table.id, scrolls: false });
    expect(table.cells).toHaveLength(table.columns.length);
    table.cells.forEach((cell, i) => {
      const where = `${table.id}: ${table.columns[i]} (${cell.text})`;
      expect(cell.text, where).not.toBe('');
      expect(cell.height, where).toBeGreaterThan(0);
      expect(cell.left, where).toBeGreaterThanOrEqual(0);
      expect(cell.right, where).toBeLessThanOrEqual(PHONE_WIDTH);
      // The first cell is the card's title; the others say which column they are.
      expect(cell.label, where).toBe(i === 0 ? 'none' : JSON.stringify(table.columns[i]));
    });
  }
}
