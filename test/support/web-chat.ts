import type { ChatClient } from './chat-client.ts';
import type { Harness, startHarness } from './harness.ts';
import { webPagesPerTest } from './web-pages.ts';

/** The app on the fakes and a client of its web chat, per test: see `webChatPerTest`. */
export interface WebChatPerTest {
  /** The harness the test started; its members reach it. */
  readonly h: Harness;
  /** The chat's address with its token, as the running app printed it last. */
  readonly chatUrl: string;
  /** Starts the app (as `startHarness`, printing to this rig) and signs a client in. */
  start(...args: Parameters<typeof startHarness>): Promise<ChatClient>;
  /** Signs a new client in with the address printed last (after a restart); closes the old. */
  connect(): Promise<ChatClient>;
}

/**
 * The preamble of a file that talks to the web chat over HTTP, called at its top: each test
 * `start`s the app, and the client and the harness are closed after it (web-pages.ts).
 */
export function webChatPerTest(): WebChatPerTest {
  const pages = webPagesPerTest();
  let chat: ChatClient | undefined;
  const connect = async () => {
    chat?.close();
    chat = await pages.page();
    return chat;
  };
  return {
    h: pages.h,
    get chatUrl() {
      return pages.chatUrl;
    },
    async start(...args) {
      await pages.start(...args);
      return connect();
    },
    connect,
  };
}
