/**
 * Makes the README's pictures of the web chat (docs/images/web-chat-*.png) from a real run:
 * satchel with the bundled packs (the `assistant` the default), on the fake model server with
 * scripted answers and tool calls and a fake SearXNG (no key, no network), on a clock that
 * starts at 08:05 on a Tuesday in Madrid, driven in Debian's Chromium (CHROMIUM_PATH
 * elsewhere) by playwright-core. A morning: to-dos added and one ticked off with its button, a
 * reminder set, a question researched with sources and a table; a second conversation with a
 * formula and code, pinned; titles written by the model. Then the pinned one at 390 px (a
 * phone, its list as a drawer), and the first screen of a new conversation. Run after
 * changing the page: `npx tsx scripts/web-screenshots.ts`; the PNGs are committed, no test
 * writes them.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { createApp } from '../src/app.ts';
import { parseConfig } from '../src/config/config.ts';
import { FakeModel, type ScriptedReply } from '../test/fakes/model-server.ts';
import { FakeSearch } from '../test/fakes/search-server.ts';
import { JumpClock } from '../test/support/jump-clock.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'docs', 'images');

/** 08:05 in Madrid on Tuesday 1 December 2026. */
const MORNING = Date.UTC(2026, 11, 1, 7, 5);
const REMINDER =
  'Reminder for the owner: pick up the bike from the repair shop. Send it as one short line starting with 🔔.';

const todo = (title: string, due_on?: string) => ({
  name: 'db_write',
  arguments: { action: 'insert', table: 'todos', values: { title, ...(due_on ? { due_on } : {}) } },
});

/** The model's side of the day, in the order the owner asks. */
const SCRIPT: ScriptedReply[] = [
  {
    toolCalls: [
      todo('Call the plumber about the boiler', '2026-12-01'),
      todo('Book passport photos', '2026-12-04'),
      todo('Buy oat milk', '2026-12-01'),
    ],
  },
  { text: 'Added 3 to-dos: the plumber and oat milk today, passport photos by **Friday**.' },
  {
    toolCalls: [
      {
        name: 'schedule',
        arguments: { action: 'create', schedule: '2026-12-01T17:30:00+01:00', prompt: REMINDER },
      },
    ],
  },
  { text: '🔔 I will remind you at **17:30** to pick up the bike.' },
  { toolCalls: [{ name: 'web_search', arguments: { query: 'e-bike 12 km commute', count: 3 } }] },
  {
    text:
      'For 12 km each way on mostly flat roads, a mid-range city e-bike is plenty:\n\n' +
      '| | Range | Weight | Price |\n' +
      '|---|---|---|---|\n' +
      '| City (hub motor) | 60–80 km | 23 kg | from €1,400 |\n' +
      '| Trekking (mid motor) | 80–120 km | 25 kg | from €2,300 |\n' +
      '| Folding | 40–60 km | 18 kg | from €1,600 |\n\n' +
      'A 400 Wh battery covers a week of commutes on one charge ' +
      '([ADAC test](https://example.org/adac-ebike-test)); a mid motor matters only on hills ' +
      '([Cycling UK](https://example.org/cyclinguk-motors)).',
  },
  {
    text:
      'With 3% a year, compounded monthly, for 10 years:\n\n' +
      '$$A = P\\left(1 + \\frac{r}{n}\\right)^{nt}$$\n\n' +
      'so €5,000 grows to about **€6,747**. In Python:\n\n' +
      '```python\n' +
      'def compound(p: float, r: float, n: int, t: int) -> float:\n' +
      '    """What p grows to at rate r, compounded n times a year for t years."""\n' +
      '    return p * (1 + r / n) ** (n * t)\n\n' +
      'print(round(compound(5000, 0.03, 12, 10), 2))  # 6746.77\n' +
      '```',
  },
];

const model = await FakeModel.start();
model.setModels('openai', ['gpt-4.1-mini', 'gpt-4.1', 'o4-mini']);
const search = await FakeSearch.start();
search.hits = [
  {
    title: 'E-bikes tested: range and weight',
    url: 'https://example.org/adac-ebike-test',
    snippet: 'A 400 Wh battery gave 70 km of mixed riding',
  },
  {
    title: 'Hub or mid-drive motor?',
    url: 'https://example.org/cyclinguk-motors',
    snippet: 'Mid-drive motors climb better',
  },
];
const clock = new JumpClock(MORNING);
const minutes = (n: number) => clock.advance(n * 60_000);
const home = mkdtempSync(path.join(tmpdir(), 'satchel-screens-'));
const packs = path.join(home, 'packs');
for (const pack of ['assistant', 'vocab', 'journal', 'habits'])
  cpSync(path.join(root, 'packs', pack), path.join(packs, pack), { recursive: true });
const printed: string[] = [];
const app = createApp(
  parseConfig({
    SATCHEL_HOME: home,
    SATCHEL_PACKS: packs,
    OPENAI_API_KEY: 'sk-screenshots-0123456789',
    OPENAI_BASE_URL: `${model.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    BATCH_WINDOW_MS: '0',
    DASHBOARD_PORT: '0',
    SATCHEL_TIMEZONE: 'Europe/Madrid',
    WEB_SEARCH_PROVIDER: 'searxng',
    SEARXNG_URL: search.url,
  }),
  {
    announce: (line) => printed.push(line),
    logDestination: { write: () => {} },
    clock,
  },
);
await app.start();
const chatUrl = printed.find((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});

/** A browser page as the owner has it: light, English, Madrid time. */
const open = (viewport: { width: number; height: number }, phone = false) =>
  browser.newPage({
    viewport,
    deviceScaleFactor: 1,
    colorScheme: 'light',
    locale: 'en-GB',
    timezoneId: 'Europe/Madrid',
    isMobile: phone,
    hasTouch: phone,
  });

/** Waits until the conversation shows `text` (an answer is whole once its badge is there). */
const shows = (page: Page, text: string) =>
  page.getByRole('log').getByText(text, { exact: false }).last().waitFor();

const say = async (page: Page, text: string, shown: string) => {
  await page.getByLabel('Message').fill(text);
  await page.keyboard.press('Enter');
  await shows(page, shown);
};

const list = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });

/** Saves a PNG of the page and says how big it is. */
async function save(page: Page, name: string) {
  const file = path.join(out, name);
  await page.screenshot({ path: file, type: 'png' });
  console.log(`wrote ${path.relative(root, file)} (${Math.round(statSync(file).size / 1024)} KB)`);
}

try {
  mkdirSync(out, { recursive: true });
  model.enqueue(...SCRIPT);
  const desk = await open({ width: 1280, height: 800 });
  await desk.goto(chatUrl);
  await desk.locator('#status', { hasText: /^Connected$/ }).waitFor();

  // The morning: just typing, so the default pack (the assistant) answers.
  model.enqueueTitle({ text: 'Morning to-dos and errands' });
  await say(
    desk,
    'I need to call the plumber about the boiler and buy oat milk today, and book passport photos by Friday',
    'passport photos by',
  );
  minutes(1);
  await say(desk, '/todos', 'To-dos');
  await desk
    .getByRole('log')
    .getByRole('button', { name: /Buy oat milk/ })
    .last()
    .click();
  await shows(desk, '1 done today');
  minutes(3);
  await say(
    desk,
    'remind me at 17:30 to pick up the bike from the repair shop',
    'pick up the bike.',
  );
  minutes(12);
  await say(
    desk,
    'Which kind of e-bike would do for my 12 km commute? Compare them',
    'a mid motor matters only',
  );
  await desk.getByRole('log').locator('table').waitFor();

  // A second conversation, pinned: a formula and code.
  model.enqueueTitle({ text: 'Compound interest in Python' });
  await list(desk).getByRole('button', { name: 'New conversation' }).click();
  await desk.getByRole('region', { name: 'Start here' }).waitFor();
  minutes(13);
  await say(
    desk,
    'How does compound interest work? €5,000 at 3% for 10 years, and how would I compute it in Python?',
    '6746.77',
  );
  await list(desk).getByRole('button', { name: /^Pin / }).first().waitFor();
  await desk.waitForTimeout(500);
  await list(desk).getByRole('button', { name: 'Pin “Compound interest in Python”' }).click();
  const second = new URL(desk.url()).hash;

  // The morning's conversation, with its titles in the list.
  await list(desk)
    .getByRole('link', { name: /Morning to-dos/ })
    .click();
  await shows(desk, 'a mid motor matters only');
  await desk.waitForTimeout(300);
  await save(desk, 'web-chat-conversation-1280.png');
  // Earlier that morning: the to-do list with its buttons, one ticked off (scrolled up, so
  // Jump to latest shows).
  await desk.getByRole('log').getByText('To-dos', { exact: false }).last().scrollIntoViewIfNeeded();
  await desk.getByRole('log').evaluate((log) => {
    log.scrollTop -= 60;
  });
  await desk.getByRole('button', { name: /Jump to latest/ }).waitFor();
  await save(desk, 'web-chat-todos-1280.png');

  const phone = await open({ width: 390, height: 844 }, true);
  await phone.goto(`${chatUrl}${second}`);
  await phone.locator('#status', { hasText: /^Connected$/ }).waitFor();
  await shows(phone, '6746.77');
  await phone.locator('.hljs, math').first().waitFor();
  await phone.waitForTimeout(300);
  await save(phone, 'web-chat-conversation-390.png');
  await phone.getByRole('button', { name: 'Conversations' }).click();
  await list(phone).waitFor();
  await save(phone, 'web-chat-conversations-390.png');

  // The first screen of a new conversation: the packs, the assistant marked as the default.
  await list(desk).getByRole('button', { name: 'New conversation' }).click();
  await desk.setViewportSize({ width: 1280, height: 720 });
  await desk.getByRole('region', { name: 'Start here' }).waitFor();
  await save(desk, 'web-chat-first-screen-1280.png');
} finally {
  await browser.close();
  await app.stop();
  await model.stop();
  await search.stop();
  rmSync(home, { recursive: true, force: true });
}
