import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import {
  type ChromiumSession,
  type ContextOptions,
  haveChromium,
  launchChromium,
  mustHaveChromium,
  watchProblems,
} from './chromium.ts';
import { type Harness, harnessVia, startHarness } from './harness.ts';

/** The web chat on a harness, and a Chromium to drive it: see `chatInBrowser`. */
export interface ChatBrowser {
  /** The harness the chat runs on; its members reach the one started before the tests. */
  readonly h: Harness;
  readonly browser: ChromiumSession;
  /** The chat's address as the app announced it (`satchel web chat: …`), with its token. */
  readonly chatUrl: string;
  /** The address the app announced last as `satchel <name>: ` ("web chat", "dashboard"). */
  announced(name: string): string;
  /** A new page on the chat, connected, with the problems its console reported from the start. */
  open(): Promise<OpenChat>;
}

export interface OpenChat {
  page: Page;
  problems: string[];
  log: Locator;
}

/** How a file's browser differs from the usual one, and Chromium flags it needs. */
export interface ChatBrowserOptions {
  context?: ContextOptions;
  args?: readonly string[];
  /** How the app is started, beyond its environment (a clock the test moves). */
  app?: Omit<NonNullable<NonNullable<Parameters<typeof startHarness>[1]>['app']>, 'announce'>;
}

/**
 * The preamble of a file that drives the web chat in Chromium, called at describe level:
 * starts a harness (`env` as `startHarness` takes it) and Chromium (900×700, en-US, light)
 * before the tests, closes both after them, and adds the "has Chromium to drive" test.
 */
export function chatInBrowser(
  env: Parameters<typeof startHarness>[0],
  options: ChatBrowserOptions = {},
): ChatBrowser {
  let started: { h: Harness; browser: ChromiumSession; printed: string[] } | undefined;
  let h: Harness | undefined;
  let browser: ChromiumSession | undefined;
  const current = () => {
    if (!started) throw new Error('chatInBrowser: the harness and Chromium have not started');
    return started;
  };
  // The newest: a restart prints a new port and token.
  const announced = (name: string) => {
    const line = current().printed.findLast((l) => l.startsWith(`satchel ${name}: `));
    if (!line) throw new Error(`chatInBrowser: the app did not announce its ${name}`);
    return line.split(': ')[1]!;
  };

  beforeAll(async () => {
    if (!haveChromium) return;
    const printed: string[] = [];
    h = await startHarness(env, {
      app: { ...options.app, announce: (line) => printed.push(line) },
    });
    browser = await launchChromium(
      {
        viewport: { width: 900, height: 700 },
        locale: 'en-US',
        colorScheme: 'light',
        ...options.context,
      },
      options.args,
    );
    started = { h, browser, printed };
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  mustHaveChromium();

  return {
    h: harnessVia(() => current().h, {}),
    get browser() {
      return current().browser;
    },
    get chatUrl() {
      return announced('web chat');
    },
    announced,
    async open() {
      const page = await current().browser.context.newPage();
      const problems = watchProblems(page);
      await page.goto(announced('web chat'));
      // A locator's wait, not expect.poll: it also serves in a beforeAll, outside any test.
      await page.locator('#status', { hasText: /^Connected$/ }).waitFor();
      return { page, problems, log: page.getByRole('log') };
    },
  };
}
