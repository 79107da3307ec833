/**
 * Makes the README's pictures of the web chat (docs/images/web-chat-*.png) from a real run:
 * satchel with the bundled packs, on the fake model server with scripted answers (no key, no
 * network), driven in Debian's Chromium (CHROMIUM_PATH elsewhere) by playwright-core. Three
 * conversations — a journal check-in, a habit logged, and words from a photo of a menu added
 * to the vocabulary deck and quizzed — then the first screen of a new one, at 1280 px and
 * at 390 px (a phone, its list as a drawer). Run after changing the page:
 * `npx tsx scripts/web-screenshots.ts`; the PNGs are committed, no test writes them.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { createApp } from '../src/app.ts';
import { parseConfig } from '../src/config/config.ts';
import { FakeModel, lastUserText } from '../test/fakes/model-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'docs', 'images');

/** What the owner says, and what the model answers (by the words it was sent). */
const ANSWERS: { when: string; text: string }[] = [
  {
    when: 'garden fence',
    text:
      'Saved tonight’s check-in: mood **4/5**, energy *low*.\n\n' +
      'Finishing something you built with your own hands is a good kind of tired. ' +
      'What part of the fence are you proudest of?',
  },
  {
    when: '20 minute run',
    text:
      'Logged **Run** for today. Streak: **6 days**, your longest since March.\n\n' +
      'One more on Sunday closes the week at 5 of 5.',
  },
  {
    when: 'menu',
    text:
      'Added **5 cards** to your *Spanish* deck:\n\n' +
      '- **el menú del día**: set lunch menu\n' +
      '- **las lentejas**: lentils\n' +
      '- **la merluza**: hake\n' +
      '- **a la plancha**: grilled\n' +
      '- **el flan casero**: homemade caramel custard\n\n' +
      'Your first review is tomorrow at 8:00. Say *quiz me* to practise now.',
  },
  {
    when: 'quiz me',
    text:
      'Three quick ones from today’s menu:\n\n' +
      '1. How do you say *grilled*?\n' +
      '2. What is **la merluza**?\n' +
      '3. Fill the gap: *Hoy el ___ cuesta 12 euros.*\n\n' +
      'Answer in one line, like `a la plancha, hake, menú del día`.',
  },
];

/** A café's chalkboard, drawn here: the photo the owner sends. */
const MENU = `<body style="margin:0;background:#2d3a33;font:28px/1.45 'DejaVu Serif',serif;color:#f4efe4">
  <div style="padding:22px 34px;width:412px;height:276px;border:10px solid #8a5a33;box-sizing:border-box">
    <div style="font-size:30px;font-weight:bold;text-align:center;white-space:nowrap">Menú del día · 12 €</div>
    <div>Lentejas con chorizo</div><div>Merluza a la plancha</div><div>Flan casero</div>
    <div style="font-size:22px;text-align:center;opacity:.8">pan, bebida y café incluidos</div>
  </div></body>`;

const model = await FakeModel.start();
model.setDefault((request) => {
  const said = lastUserText(request).toLowerCase();
  return { text: ANSWERS.find((a) => said.includes(a.when))?.text ?? 'Noted.', chunks: 4 };
});
const home = mkdtempSync(path.join(tmpdir(), 'satchel-screens-'));
const packs = path.join(home, 'packs');
for (const pack of ['vocab', 'journal', 'habits'])
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
  }),
  { announce: (line) => printed.push(line), logDestination: { write: () => {} } },
);
await app.start();
const chatUrl = printed.find((l) => l.startsWith('satchel web chat: '))!.split(': ')[1]!;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});

/** Waits until the conversation shows `text` (an answer is whole once its badge is there). */
const shows = (page: Page, text: string) =>
  page.getByRole('log').getByText(text, { exact: false }).last().waitFor();

const newConversation = (page: Page) =>
  page.getByRole('button', { name: 'New conversation', exact: true }).click();

/**
 * A conversation: its first screen, the pack picked there, then `turns`. The first is the
 * one the page opens on (there is always one); the others are made with New conversation.
 */
async function conversation(page: Page, pack: string, turns: (() => Promise<void>)[]) {
  if (await page.getByRole('log').locator('.bubble').count()) await newConversation(page);
  await page
    .getByRole('log')
    .getByRole('button', { name: new RegExp(pack) })
    .click();
  await shows(page, `Now using ${pack}.`);
  for (const turn of turns) await turn();
}

const say = (page: Page, text: string, shown: string) => async () => {
  await page.getByLabel('Message').fill(text);
  await page.keyboard.press('Enter');
  await shows(page, shown);
};

/** Saves a PNG of the page and says how big it is. */
async function save(page: Page, name: string) {
  const file = path.join(out, name);
  await page.screenshot({ path: file, type: 'png' });
  console.log(`wrote ${path.relative(root, file)} (${Math.round(statSync(file).size / 1024)} KB)`);
}

try {
  mkdirSync(out, { recursive: true });
  const desk = await browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    locale: 'en-US',
  });
  await desk.goto(chatUrl);
  await desk.locator('#status', { hasText: /^Connected$/ }).waitFor();

  await conversation(desk, 'Journal', [
    say(desk, 'Tired but happy: we finished the garden fence today', 'What part of the fence'),
  ]);
  await conversation(desk, 'Habit Tracker', [say(desk, 'Did my 20 minute run', 'closes the week')]);

  const photo = await browser.newPage({ viewport: { width: 412, height: 276 } });
  await photo.setContent(MENU);
  const menu = await photo.screenshot({ type: 'png' });
  await photo.close();
  await conversation(desk, 'Vocabulary Trainer', [
    async () => {
      const chooser = desk.waitForEvent('filechooser');
      await desk.getByRole('button', { name: 'Attach files' }).click();
      await (await chooser).setFiles({ name: 'menu.png', mimeType: 'image/png', buffer: menu });
      await say(desk, 'Add the words on this menu to my Spanish deck', 'Say quiz me')();
      await desk
        .getByRole('img', { name: 'Photo you sent' })
        .evaluate((img: { decode(): Promise<void> }) => img.decode());
      await save(desk, 'web-chat-conversation-1280.png');
    },
    say(desk, 'quiz me', 'Answer in one line'),
  ]);
  // The same conversation on the phone: a new browser, so the address with the token.
  const opened = `${chatUrl}${new URL(desk.url()).hash}`;

  // The first screen of a new conversation: the packs to choose from, and the commands.
  await newConversation(desk);
  // A laptop's height: the packs and the first commands (more are below, as on any page).
  await desk.setViewportSize({ width: 1280, height: 720 });
  await desk.getByRole('region', { name: 'Start here' }).waitFor();
  await save(desk, 'web-chat-first-screen-1280.png');

  const phone = await browser.newPage({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    locale: 'en-US',
    isMobile: true,
    hasTouch: true,
  });
  await phone.goto(opened);
  await phone.locator('#status', { hasText: /^Connected$/ }).waitFor();
  await shows(phone, 'Answer in one line');
  await save(phone, 'web-chat-conversation-390.png');
  await phone.getByRole('button', { name: 'Conversations' }).click();
  await phone.getByRole('navigation', { name: 'Conversations' }).waitFor();
  await save(phone, 'web-chat-conversations-390.png');
} finally {
  await browser.close();
  await app.stop();
  await model.stop();
  rmSync(home, { recursive: true, force: true });
}
