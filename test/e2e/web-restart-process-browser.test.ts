/**
 * Staying signed in across a real restart (SPEC §16): the satchel process is stopped and
 * started again under an open Chromium page, with no DASHBOARD_TOKEN set. The second process
 * reads the token the first kept, so the page's cookie still signs it in and the tab
 * reconnects by itself, without a reload.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeModel } from '../fakes/model-server.ts';
import { startArgs } from '../support/built.ts';
import { spawnNode } from '../support/child.ts';
import { haveChromium, launchChromium, skipBrowser } from '../support/chromium.ts';
import { fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';

const skipped = skipBrowser('web-restart-process-browser', 'a real restart under an open page');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(skipped)('a real restart under an open page', () => {
  it.skipIf(!haveChromium)(
    'keeps the token, and the open tab reconnects and goes on without a reload',
    async () => {
      const model = await FakeModel.start();
      cleanups.push(() => model.stop());
      const home = mkdtempSync(path.join(tmpdir(), 'satchel-restart-'));
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const env = {
        PATH: process.env.PATH ?? '',
        SATCHEL_HOME: path.join(home, 'data'),
        SATCHEL_PACKS: fixturePacks(['alpha']),
        OPENAI_API_KEY: TEST_OPENAI_KEY,
        OPENAI_BASE_URL: `${model.url}/v1`,
        BATCH_WINDOW_MS: '0',
        SATCHEL_TIMEZONE: 'UTC',
        DASHBOARD_PORT: String(await freePort()),
      };
      const start = async () => {
        const run = spawnNode(startArgs(), { cwd: home, env, stdin: 'ignore' }, (c) =>
          cleanups.push(c),
        );
        let address = '';
        await vi.waitFor(
          () => {
            address = /satchel web chat: (\S+)/.exec(run.stderr())?.[1] ?? '';
            expect(address).toMatch(/\/chat\?token=/);
          },
          { timeout: 20_000, interval: 50 },
        );
        return { run, address };
      };

      const first = await start();
      const browser = await launchChromium({ viewport: { width: 900, height: 700 } });
      cleanups.push(() => browser.close());
      const page = await browser.context.newPage();
      await page.goto(first.address);
      const status = page.locator('#status');
      await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Connected');
      const log = page.getByRole('log');
      const say = async (text: string) => {
        await page.getByLabel('Message').fill(text);
        await page.getByLabel('Message').press('Enter');
      };
      await say('before');
      await expect
        .poll(() => log.locator('.bubble.bot .text').last().textContent(), { timeout: 10_000 })
        .toBe('echo: before');

      // A mark on this document: a reload would drop it.
      await page.evaluate('window.sameDocument = true');
      first.run.child.kill('SIGTERM');
      expect(await first.run.exited).toBe(0);
      await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Reconnecting…');
      const second = await start();
      // The kept token: the same address as before.
      expect(second.address).toBe(first.address);
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('Connected');
      await say('after');
      await expect
        .poll(() => log.locator('.bubble.bot .text').last().textContent(), { timeout: 10_000 })
        .toBe('echo: after');
      expect(await log.locator('.bubble.user').allTextContents()).toEqual(['before', 'after']);
      // Never reloaded: the same document all along.
      expect(await page.evaluate<boolean>('window.sameDocument')).toBe(true);
      second.run.child.kill('SIGTERM');
      expect(await second.run.exited).toBe(0);
    },
    90_000,
  );
});
