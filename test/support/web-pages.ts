import { afterEach, expect } from 'vitest';
import { ChatClient } from './chat-client.ts';
import { type Harness, harnessVia, startHarness } from './harness.ts';

const PREFIX = 'satchel web chat: ';

/** The app on the fakes and pages of its web chat, per test: see `webPagesPerTest`. */
export interface WebPagesPerTest {
  /** The harness the test started; its members reach it. */
  readonly h: Harness;
  /** The chat's address with its token, as the running app printed it last. */
  readonly chatUrl: string;
  /** Starts the app (as `startHarness`), its printed lines kept by this rig. */
  start(...args: Parameters<typeof startHarness>): Promise<void>;
  /**
   * A page signed in with the address printed last (after a restart, the new one), reading
   * conversation `id` (or the default one).
   */
  page(id?: string): Promise<ChatClient>;
  /** Closes `client` after the test, with the pages. */
  keep(client: ChatClient): ChatClient;
}

/**
 * The preamble of a file that talks to the web chat over HTTP with one page or more, called
 * at its top: each test `start`s the app, and its pages and the harness are closed after it.
 */
export function webPagesPerTest(): WebPagesPerTest {
  let h: Harness | undefined;
  const pages: ChatClient[] = [];
  let printed: string[] = [];
  afterEach(async () => {
    for (const page of pages.splice(0)) page.close();
    await h?.close();
    h = undefined;
  });
  const chatUrl = () => {
    const line = printed.findLast((l) => l.startsWith(PREFIX));
    if (!line) throw new Error('webPagesPerTest: the app has not printed the web chat address');
    return line.slice(PREFIX.length);
  };
  const keep = (client: ChatClient) => {
    pages.push(client);
    return client;
  };
  return {
    h: harnessVia(() => {
      if (!h) throw new Error('webPagesPerTest: the test has not started the app');
      return h;
    }, {}),
    get chatUrl() {
      return chatUrl();
    },
    async start(env, options = {}) {
      printed = [];
      h = await startHarness(env, {
        ...options,
        app: { ...options.app, announce: (line) => printed.push(line) },
      });
    },
    async page(id) {
      const url = chatUrl();
      // Local, and the token in the address (the page trades it for a cookie).
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/chat\?token=/);
      const page = keep(await ChatClient.open(url));
      page.conversation = id;
      await page.connect();
      return page;
    },
    keep,
  };
}
