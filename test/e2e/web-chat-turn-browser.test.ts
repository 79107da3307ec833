import { describe, expect, it } from 'vitest';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks, type Harness } from '../support/harness.ts';

const skipped = skipBrowser('web-chat-turn-browser', 'the web chat while a turn runs');

/** How many of the model's requests were abandoned by satchel (a stopped turn). */
const abortedCount = (h: Harness) => h.model.chatRequests().filter((r) => r.aborted).length;

describe.skipIf(skipped)(
  'the web chat in a real browser: the first screen and a running turn',
  () => {
    const web = chatInBrowser({
      SATCHEL_PACKS: fixturePacks(['alpha', 'beta']),
      BATCH_WINDOW_MS: '0',
    });
    const { h } = web;

    it.skipIf(!haveChromium)(
      'shows the packs with their descriptions and the commands on the first screen; a click picks a pack',
      async () => {
        const { page, problems } = await web.open();
        const welcome = page.getByRole('region', { name: 'Start here' });
        const beta = welcome.getByRole('button', { name: /Beta Books/ });
        await expect.poll(() => beta.textContent()).toBe('Beta BooksA reading list.');
        expect(await welcome.getByRole('button', { name: /Alpha Garden/ }).textContent()).toBe(
          "Alpha GardenKeeps track of the user's plants.",
        );
        for (const command of ['/help', '/pack', '/new', '/stop'])
          expect(await welcome.getByRole('button', { name: command, exact: true }).count()).toBe(1);
        // A command goes into the box, ready to send.
        await welcome.getByRole('button', { name: '/help', exact: true }).click();
        expect(await page.getByLabel('Message').inputValue()).toBe('/help ');
        await page.getByLabel('Message').fill('');

        await beta.click();
        const log = page.getByRole('log');
        await expect
          .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
          .toBe('Now using Beta Books.');
        expect(await welcome.count()).toBe(0);
        await page.getByLabel('Message').fill('hi');
        await page.getByLabel('Message').press('Enter');
        await expect
          .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
          .toBe('echo: hi\n\n— Beta Books');
        expect(problems).toEqual([]);
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'shows "Working…" from the send until the first text, then the answer',
      async () => {
        const { page } = await web.open();
        const log = page.getByRole('log');
        const working = log.getByText('Working…');
        // The model thinks until the page has been looked at (an event, not a fixed delay).
        let release = () => {};
        const looked = new Promise<void>((resolve) => (release = resolve));
        h.model.enqueue({ text: 'Thought it over: **yes**.', until: looked, chunks: 2 });
        await page.getByLabel('Message').fill('think first');
        await page.getByLabel('Message').press('Enter');
        await expect.poll(() => working.isVisible(), { interval: 20 }).toBe(true);
        expect(await log.getAttribute('aria-busy')).toBe('true');
        expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
        release();
        await expect
          .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
          .toBe('Thought it over: yes.\n\n— Beta Books');
        expect(await working.count()).toBe(0);
        expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(false);
        expect(await log.getAttribute('aria-busy')).toBe('false');
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'stops a streaming answer with the Stop button, keeping its text above a follow-up typed meanwhile, also after a reload',
      async () => {
        const { page } = await web.open();
        const log = page.getByRole('log');
        const before = abortedCount(h);
        h.model.enqueue({ text: 'one two three four five six seven', trickle: true });
        await page.getByLabel('Message').fill('tell me a long story');
        await page.getByLabel('Message').press('Enter');
        await expect.poll(() => log.locator('.live').count(), { timeout: 10_000 }).toBe(1);
        // The box stays usable while the answer streams: this line waits its turn.
        await page.getByLabel('Message').fill('and then this');
        await page.getByRole('button', { name: 'Send' }).click();
        await expect.poll(() => page.getByLabel('Message').inputValue()).toBe('');

        await page.getByRole('button', { name: 'Stop' }).click();
        await expect.poll(() => abortedCount(h), { timeout: 10_000 }).toBe(before + 1);
        const answers = log.locator('.bubble.bot');
        await expect
          .poll(() => answers.last().textContent(), { timeout: 10_000 })
          .toBe('echo: and then this\n\n— Beta Books');
        // The stopped answer keeps what it had written, marked, above the line typed meanwhile.
        const order = async () =>
          (await log.locator('.bubble').allTextContents()).slice(-4).map((t) => t.split('\n')[0]);
        const stopped = answers.nth(-2);
        expect(await stopped.textContent()).toMatch(
          /^one two( \w+)*\n\nStopped\.\n\n— Beta Books$/,
        );
        expect(await stopped.locator('i').textContent()).toBe('Stopped.');
        const shown = await order();
        expect(shown).toEqual([
          'tell me a long story',
          expect.stringMatching(/^one two/),
          'and then this',
          'echo: and then this',
        ]);
        expect(await log.locator('.live').count()).toBe(0);
        expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(false);
        // Also after a reload: it is the stored answer.
        await page.reload();
        await expect.poll(order, { timeout: 10_000 }).toEqual(shown);
        expect(await log.locator('.bubble.bot').nth(-2).textContent()).toMatch(
          /^one two( \w+)*\n\nStopped\.\n\n— Beta Books$/,
        );
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'empties the box as a line leaves and puts a refused line back, with the reason',
      async () => {
        const { page } = await web.open();
        const box = page.getByLabel('Message');
        const tooLong = 'x'.repeat(16_001);
        await box.fill(tooLong);
        await box.press('Enter');
        await expect
          .poll(() => page.locator('#notice').textContent(), { timeout: 10_000 })
          .toBe('A message holds at most 16000 characters.');
        expect(await box.inputValue()).toBe(tooLong);
        expect(await page.locator('#working').count()).toBe(0);
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'stops with Escape',
      async () => {
        const { page } = await web.open();
        const log = page.getByRole('log');
        const before = abortedCount(h);
        h.model.enqueue({ text: 'a b c d e f g h', trickle: true });
        await page.getByLabel('Message').fill('ramble on');
        await page.getByLabel('Message').press('Enter');
        await expect.poll(() => page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
        expect(
          await page.getByRole('button', { name: 'Stop' }).getAttribute('aria-keyshortcuts'),
        ).toBe('Escape');
        await page.getByLabel('Message').press('Escape');
        await expect.poll(() => abortedCount(h), { timeout: 10_000 }).toBe(before + 1);
        // "Stopped.", under what it had written if its first words came before the key.
        await expect
          .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
          .toMatch(/^(Stopped\.|a( [a-h])*\n\nStopped\.\n\n— Beta Books)$/);
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'shows an error reply with its command as code',
      async () => {
        const { page } = await web.open();
        const log = page.getByRole('log');
        h.model.failNext(1, 401);
        await page.getByLabel('Message').fill('are you there?');
        await page.getByLabel('Message').press('Enter');
        const reply = log.locator('.bubble.bot').last();
        await expect.poll(() => reply.textContent(), { timeout: 10_000 }).toContain('refused');
        expect(await reply.locator('code').textContent()).toBe('npx satchel doctor');
        expect(await reply.textContent()).not.toContain('`');
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'leaves one blank line after a quote, as between paragraphs',
      async () => {
        const { page } = await web.open();
        const log = page.getByRole('log');
        h.model.enqueue({ text: '> A quoted line.\n\nAfter the quote.\n\nAfter a paragraph.' });
        await page.getByLabel('Message').fill('quote something');
        await page.getByLabel('Message').press('Enter');
        const reply = log.locator('.bubble.bot').last();
        await expect
          .poll(() => reply.textContent(), { timeout: 10_000 })
          .toContain('After a paragraph.');
        // Gaps from the bottom of one line's words to the top of the next line's words.
        const gaps = await page.evaluate<{ afterQuote: number; afterParagraph: number }>(`(() => {
        const text = [...document.querySelectorAll('#log .bubble.bot .text')].at(-1);
        const box = (phrase) => {
          const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.textContent.indexOf(phrase);
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + phrase.length);
            return range.getBoundingClientRect();
          }
          throw new Error('no ' + phrase);
        };
        const quote = box('A quoted line.');
        const afterQuote = box('After the quote.');
        const afterParagraph = box('After a paragraph.');
        return {
          afterQuote: afterQuote.top - quote.bottom,
          afterParagraph: afterParagraph.top - afterQuote.bottom,
        };
      })()`);
        expect(gaps.afterParagraph).toBeGreaterThan(10);
        expect(Math.abs(gaps.afterQuote - gaps.afterParagraph)).toBeLessThanOrEqual(2);
        await page.close();
      },
      60_000,
    );

    it.skipIf(!haveChromium)(
      'keeps the header within the screen at 390 px, also while reconnecting: the conversation and the status on one row, the picker and the usage link on the next',
      async () => {
        const page = await web.browser.context.newPage();
        await page.setViewportSize({ width: 390, height: 800 });
        // The event stream refused: the page says it is reconnecting.
        await page.route('**/chat/events', (route) => route.abort());
        await page.goto(web.chatUrl);
        await expect.poll(() => page.locator('#status').textContent()).toBe('Reconnecting…');
        const layout = await page.evaluate<{
          tops: number[];
          bottoms: number[];
          rights: number[];
          width: number;
          nav: { top: number; right: number };
          statusCut: boolean;
        }>(`(() => {
        // What shows on the first row: the brand steps aside on a phone (still read out, in a
        // 1 px box); the picker and the link (the nav) have the second.
        const boxes = [...document.querySelectorAll('body > header > :not(nav)')]
          .map((c) => c.getBoundingClientRect())
          .filter((b) => b.width > 1);
        const nav = document.querySelector('body > header > nav').getBoundingClientRect();
        const status = document.getElementById('status');
        return {
          tops: boxes.map((b) => Math.round(b.top)),
          bottoms: boxes.map((b) => Math.round(b.bottom)),
          rights: boxes.map((b) => Math.round(b.right)),
          width: document.documentElement.clientWidth,
          nav: { top: Math.round(nav.top), right: Math.round(nav.right) },
          statusCut: status.scrollWidth > status.clientWidth,
        };
      })()`);
        // Side by side: no child of the first row starts below another's bottom, none past the
        // screen's edge; the second row starts below them.
        expect(Math.max(...layout.tops)).toBeLessThan(Math.min(...layout.bottoms));
        expect(Math.max(...layout.rights)).toBeLessThanOrEqual(layout.width);
        expect(layout.nav.top).toBeGreaterThanOrEqual(Math.max(...layout.bottoms));
        expect(layout.nav.right).toBeLessThanOrEqual(layout.width);
        expect(layout.statusCut).toBe(false);
        await page.close();
      },
      60_000,
    );
  },
);
