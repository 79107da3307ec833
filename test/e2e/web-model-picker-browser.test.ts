/**
 * The model picker in the web chat's header, in Chromium (SPEC §16): it lists the models
 * the provider offers with their prices (the unpriced marked), picking one answers the
 * conversation with it and says so in the chat, and axe-core finds nothing serious.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations, grave } from '../support/axe.ts';
import { chatInBrowser } from '../support/chat-browser.ts';
import { skipBrowser } from '../support/chromium.ts';

const skipped = skipBrowser('web-model-picker-browser', 'the model picker');

describe.skipIf(skipped)('the model picker in a browser', () => {
  const chat = chatInBrowser({});

  it('lists the offered models with prices, and a pick answers with that model', async () => {
    // whisper-1 is a speech-to-text model the catalog knows: it is not offered for chat.
    chat.h.model.setModels('openai', ['gpt-4.1-mini', 'whisper-1', 'my-local-model', 'gpt-4.1']);
    const { page, problems, log } = await chat.open();
    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual([
        'Default · openai:gpt-4.1-mini',
        'openai:gpt-4.1 · $2 in / $8 out per 1M tokens',
        'openai:gpt-4.1-mini · $0.4 in / $1.6 out per 1M tokens',
        'openai:my-local-model · no price',
      ]);
    expect(grave(await axeViolations(page))).toEqual([]);

    await picker.selectOption('openai:gpt-4.1');
    await expect
      .poll(() => log.textContent(), { timeout: 10_000 })
      .toContain('This chat now uses openai:gpt-4.1.');
    await page.getByLabel('Message').fill('hello');
    await page.keyboard.press('Enter');
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('echo: hello');
    expect(chat.h.model.chatRequests().at(-1)!.model).toBe('gpt-4.1');
    // A reload shows the pick.
    await page.reload();
    await expect.poll(() => picker.inputValue()).toBe('openai:gpt-4.1');
    // On a phone: the picker and the list's new controls (the drawer open) stay clean too.
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await picker.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Conversations' }).click();
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .locator('summary')
      .first()
      .click();
    expect(grave(await axeViolations(page))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
