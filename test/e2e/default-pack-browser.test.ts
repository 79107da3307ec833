/**
 * The web chat's first screen in a real browser with DEFAULT_PACK set (SPEC §16): the default
 * pack is marked among the packs, a line typed without choosing is answered by it, and the
 * screen has no serious or critical accessibility violation.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { haveChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks } from '../support/harness.ts';

const skipped = skipBrowser('default-pack-browser', 'the first screen with a default pack');

describe.skipIf(skipped)('the web chat first screen with DEFAULT_PACK', () => {
  const web = chatInBrowser({
    SATCHEL_PACKS: fixturePacks(['alpha', 'beta']),
    DEFAULT_PACK: 'beta',
    BATCH_WINDOW_MS: '0',
  });

  it.skipIf(!haveChromium)(
    'marks the default pack, and typing without a choice goes to it',
    async () => {
      const { page, problems } = await web.open();
      const welcome = page.getByRole('region', { name: 'Start here' });
      const beta = welcome.getByRole('button', { name: /Beta Books/ });
      await expect.poll(() => beta.textContent()).toBe('Beta Books · defaultA reading list.');
      expect(await beta.getAttribute('aria-pressed')).toBe('true');
      const alpha = welcome.getByRole('button', { name: /Alpha Garden/ });
      expect(await alpha.textContent()).toBe("Alpha GardenKeeps track of the user's plants.");
      expect(await alpha.getAttribute('aria-pressed')).toBeNull();
      expect(grave(await axeViolations(page))).toEqual([]);

      await page.getByLabel('Message').fill('hi');
      await page.getByLabel('Message').press('Enter');
      const log = page.getByRole('log');
      await expect
        .poll(() => log.locator('.bubble.bot').last().textContent(), { timeout: 10_000 })
        .toBe('echo: hi\n\n— Beta Books');
      expect(await log.getByText('Which pack should answer here?').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
