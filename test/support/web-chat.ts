import { afterEach, expect } from 'vitest';
import { ChatClient } from './chat-client.ts';
import { type Harness, harnessVia, startHarness } from './harness.ts';

const PREFIX = 'satchel web chat: ';

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
 * `start`s the app, and the client and the harness are closed after it.
 */
export function webChatPerTest(): WebChatPerTest {
  let h: Harness | undefined;
  let chat: ChatClient | undefined;
  let printed: string[] = [];
  afterEach(async () => {
    chat?.close();
    chat = undefined;
    await h?.close();
    h = undefined;
  });
  const chatUrl = () => {
    const line = printed.findLast((l) => l.startsWith(PREFIX));
    if (!line) throw new Error('webChatPerTest: the app has not printed the web chat address');
    return line.slice(PREFIX.length);
  };
  const connect = async () => {
    const url = chatUrl();
    // Local, and the token in the address (the page trades it for a cookie).
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/chat\?token=/);
    chat?.close();
    chat = await ChatClient.open(url);
    await chat.connect();
    return chat;
  };
  return {
    h: harnessVia(() => {
      if (!h) throw new Error('webChatPerTest: the test has not started the app');
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
      return connect();
    },
    connect,
  };
}
