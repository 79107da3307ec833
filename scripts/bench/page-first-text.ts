import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** satchel's finished messages (not the live draft, not the "Working…" indicator). */
const ANSWERS = '#log .bubble.bot:not(.live):not(.working)';

/** Records, in the page, when each live (streaming) bubble first shows text (epoch ms). */
const WATCH = `(() => {
  window.firstShown = [];
  const seen = new WeakSet();
  new MutationObserver(() => {
    const live = document.querySelector('#log .bubble.live .text');
    if (live && !seen.has(live.parentElement) && live.textContent.trim() !== '') {
      seen.add(live.parentElement);
      window.firstShown.push(performance.timeOrigin + performance.now());
    }
  }).observe(document.getElementById('log'), { childList: true, subtree: true, characterData: true });
})()`;

/**
 * The first text as the owner sees it: in Chromium, on the chat at `chatUrl`, `turns` lines
 * typed and sent from the page; for each, the moment its streamed answer's first text is in
 * the page's DOM − `firstToken(label)`, the moment the fake model wrote its first piece (both
 * epoch ms on this machine). undefined without Chromium.
 */
export async function pageFirstText(
  chatUrl: string,
  turns: number,
  firstToken: (label: string) => number | undefined,
): Promise<number[] | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage();
    await page.goto(chatUrl);
    await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
    await page.evaluate(WATCH);
    const figures: number[] = [];
    for (let n = 0; n <= turns; n++) {
      const label = `page-first-${n}`;
      const answers = await page.locator(ANSWERS).count();
      await page.locator('#message').fill(label);
      await page.locator('#message').press('Enter');
      await page.locator(ANSWERS).nth(answers).waitFor({ timeout: 30_000 });
      const shown = await page.evaluate<number[]>('window.firstShown');
      const token = firstToken(label);
      if (token === undefined || shown.length === 0) throw new Error(`no first text for ${label}`);
      // The first turn binds the pack and opens the session: not measured.
      if (n > 0) figures.push(shown.at(-1)! - token);
    }
    return figures;
  } finally {
    await browser.close();
  }
}
