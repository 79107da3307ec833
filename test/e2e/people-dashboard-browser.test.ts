/**
 * The dashboard shows what each person cost (SPEC §7, §19): the People table (today beside the
 * last 30 days, most spend first, each person by name and id) and each recent turn's Person,
 * rendered in a real Chromium from the same numbers /api/usage serves.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dashboard } from '../../src/dashboard/server.ts';
import type { CoreReader } from '../../src/store/read-only.ts';
import { people } from '../../src/store/schema.ts';
import { usd } from '../../src/usage/money.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';
import {
  type ChromiumSession,
  haveChromium,
  launchChromium,
  mustHaveChromium,
  skipBrowser,
  watchProblems,
} from '../support/chromium.ts';
import {
  SEED_NOW,
  SEED_TIMEZONE,
  seedDashboard,
  seedLedger,
  tempCoreStore,
} from '../support/usage-seed.ts';

const TOKEN = 'people-browser-token-0123';
const DAY = 24 * 60;
const skipped = skipBrowser('people-dashboard-browser', 'the dashboard’s People table');

/** The owner today and a week ago; Gwen today (the most); Sam only 10 days ago. */
const CALLS = [
  { ago: 30, pack: 'vocab', turn: 't-owner-today', person: 'owner', input: 10_000, output: 1_000 },
  { ago: 7 * DAY, pack: 'vocab', turn: 't-owner-7d', person: 'owner', input: 20_000, output: 0 },
  { ago: 20, pack: 'vocab', turn: 't-gwen-today', person: '222', input: 50_000, output: 5_000 },
  { ago: 10 * DAY, pack: 'journal', turn: 't-sam-10d', person: '333', input: 4_000, output: 400 },
];

/** Each row of a table as the text of its cells, keyed by their column (data-label). */
async function rowsOf(page: Page, table: string): Promise<Record<string, string>[]> {
  return page
    .locator(`${table} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((row) =>
        Object.fromEntries(
          [...row.querySelectorAll('td')].map((td) => [
            td.getAttribute('data-label'),
            td.textContent,
          ]),
        ),
      ),
    );
}

describe.skipIf(skipped)('the People table and the Person column', () => {
  let env: ReturnType<typeof tempCoreStore>;
  let reader: CoreReader;
  let dashboard: Dashboard;
  let url: string;
  let browser: ChromiumSession | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    env = tempCoreStore();
    const clock = seedLedger(env.store, CALLS);
    for (const [id, name, via] of [
      ['owner', 'owner', 'owner'],
      ['222', 'Gwen', 'paired'],
      ['333', 'Sam', 'listed'],
    ] as const)
      env.store.db.insert(people).values({ id, name, via, createdAt: SEED_NOW }).run();
    ({ dashboard, reader } = seedDashboard(env.home, clock, TOKEN));
    url = `${(await dashboard.start())!.url}`;
    browser = await launchChromium({ locale: 'en-US', timezoneId: SEED_TIMEZONE });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
    reader?.close();
    env?.close();
  });

  mustHaveChromium();

  it.skipIf(!haveChromium)(
    'shows each person’s spend today and in 30 days, and each turn’s person',
    async () => {
      const page = await browser!.context.newPage();
      const problems = watchProblems(page);
      await page.clock.install({ time: SEED_NOW });
      await page.goto(url);
      const api = (await (
        await page.request.get(new URL('/api/usage', url).href)
      ).json()) as UsageOverview;
      await expect.poll(() => page.locator('#by-person tbody tr').count()).toBe(3);

      const spent = (person: string, period: 'today' | 'last_30_days') => {
        const row = api.by_person[period].find((p) => p.person === person);
        return row ? usd(row.cost_usd!) : '$0';
      };
      const row = (label: string, id: string, calls: string) => ({
        Person: label,
        Today: spent(id, 'today'),
        Cost: spent(id, 'last_30_days'),
        Calls: calls,
        Tokens: expect.any(String),
      });
      // Most spend first: Gwen's one large turn today, then the owner's two, then Sam's.
      expect(await rowsOf(page, '#by-person')).toEqual([
        row('Gwen (222)', '222', '1'),
        row('owner', 'owner', '2'),
        row('Sam (333)', '333', '1'),
      ]);
      // Sam spent nothing today; the owner's 30 days hold both their turns.
      expect(spent('333', 'today')).toBe('$0');
      expect(api.by_person.last_30_days.find((p) => p.person === 'owner')?.calls).toBe(2);

      // Newest first, each turn with the person it was for.
      expect((await rowsOf(page, '#turns')).map((t) => t.Person)).toEqual([
        '222',
        'owner',
        'owner',
        '333',
      ]);
      expect(problems).toEqual([]);
    },
  );
});
