/**
 * A client of the web chat's HTTP endpoints, as the page uses them: it signs in with the
 * printed `?token=` address (keeping the cookie), reads `/chat/events` (server-sent events,
 * each recorded with the time it arrived) and posts lines and presses with the page's own
 * origin. Written against the wire, not against src/web, so tests do not check the code
 * against itself. No test framework inside: the benchmark uses it too.
 */
import { type ClientRequest, request } from 'node:http';

export interface ChatEntry {
  kind: 'user' | 'bot';
  id: number;
  text?: string;
  html?: string;
  buttons?: { text: string; data: string }[][];
  /** A file the owner sent: a photo's upload id, a document's name, a recording's length. */
  attachment?: { kind: 'photo' | 'document' | 'voice'; image?: string; name?: string };
  /** When it was sent or stored (ms). */
  at?: number;
  /** A failed turn's error line. */
  failed?: true;
  /** A scheduled job's message: its pack. */
  job?: string;
}

/** A file as the page uploads it: what it is, its name and type, and its bytes. */
export interface Upload {
  kind: 'photo' | 'document' | 'voice';
  name: string;
  type: string;
  /** The body: bytes, or a stream (sent chunked, with no declared length). */
  data: Buffer | ReadableStream<Uint8Array>;
  caption?: string;
  album?: string;
  duration?: number;
}

export interface ChatEvent {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: the event's JSON, inspected by tests
  data: any;
  /** When it arrived (performance.timeOrigin + performance.now()). */
  at: number;
}

const preciseNow = () => performance.timeOrigin + performance.now();

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

/** A web conversation as `GET /chat/conversations` lists it. */
export interface ChatConversation {
  id: string;
  title: string;
  updatedAt: number;
}

export class ChatClient {
  readonly events: ChatEvent[] = [];
  /**
   * The conversation this client reads and posts to (`?c=` and `conversation` in each POST);
   * undefined: the one the server opens by default (the most recently used).
   */
  conversation: string | undefined;
  private stream: ClientRequest | undefined;
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly base: URL,
    readonly cookie: string,
  ) {}

  /** Signs in with the chat's printed address (`…/chat?token=…`). */
  static async open(chatUrl: string): Promise<ChatClient> {
    const response = await fetch(chatUrl, { redirect: 'manual' });
    const cookie = response.headers.get('set-cookie')?.split(';')[0];
    check(response.status === 303 && cookie !== undefined, `sign-in got ${response.status}`);
    return new ChatClient(new URL('/', chatUrl), cookie!);
  }

  /** Starts reading the event stream; resolves once its head arrived. */
  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const url = new URL('/chat/events', this.base);
      if (this.conversation !== undefined) url.searchParams.set('c', this.conversation);
      const req = request(url, {
        headers: { cookie: this.cookie, accept: 'text/event-stream' },
      });
      this.stream = req;
      req.on('error', (error) => {
        if (!req.destroyed || this.stream === req) reject(error);
      });
      req.on('response', (res) => {
        const type = res.headers['content-type'] ?? '';
        if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
          reject(new Error(`/chat/events answered ${res.statusCode} (${type})`));
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          const at = preciseNow();
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            this.frame(buffer.slice(0, end), at);
            buffer = buffer.slice(end + 2);
          }
        });
        res.on('error', () => undefined);
        resolve();
      });
      req.end();
    });
  }

  private frame(frame: string, at: number): void {
    let type = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0) return;
    this.events.push({ type, data: JSON.parse(data.join('\n')), at });
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves once `ready` holds (checked on every event); rejects after `timeout` ms. */
  waitFor<T>(ready: () => T | undefined, what: string, timeout = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = ready();
        if (value === undefined) return;
        done();
        resolve(value);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}`));
      }, timeout);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(attempt);
      };
      this.waiters.add(attempt);
      attempt();
    });
  }

  /** Posts as the page does: JSON, with the cookie and the page's origin. */
  post(
    path:
      | 'send'
      | 'press'
      | 'stop'
      | 'pick'
      | 'conversations'
      | 'rename'
      | 'pin'
      | 'delete'
      | 'undo'
      | 'model',
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const named =
      this.conversation !== undefined && body && typeof body === 'object' && !Array.isArray(body)
        ? { conversation: this.conversation, ...body }
        : body;
    return fetch(new URL(`/chat/${path}`, this.base), {
      method: 'POST',
      headers: {
        cookie: this.cookie,
        origin: this.base.origin,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(named),
    });
  }

  /** GETs a path under the chat with the cookie, as the page does; the parsed JSON. */
  async get<T>(path: string): Promise<{ status: number; body: T }> {
    const response = await fetch(new URL(path, this.base), { headers: { cookie: this.cookie } });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** The conversations, the most recently used first. */
  async conversations(): Promise<ChatConversation[]> {
    const { status, body } = await this.get<{ conversations: ChatConversation[] }>(
      '/chat/conversations',
    );
    check(status === 200, `GET /chat/conversations answered ${status}`);
    return body.conversations;
  }

  /** Makes a new conversation (the page's "New conversation" button). */
  async newConversation(): Promise<ChatConversation> {
    const response = await this.post('conversations', {});
    check(response.status === 201, `POST /chat/conversations answered ${response.status}`);
    return ((await response.json()) as { conversation: ChatConversation }).conversation;
  }

  /** Uploads a file as the page does: its bytes as the body, what it is in the query. */
  upload(file: Upload, headers: Record<string, string> = {}) {
    const url = new URL('/chat/upload', this.base);
    if (this.conversation !== undefined) url.searchParams.set('c', this.conversation);
    url.searchParams.set('kind', file.kind);
    url.searchParams.set('name', file.name);
    if (file.caption !== undefined) url.searchParams.set('caption', file.caption);
    if (file.album !== undefined) url.searchParams.set('album', file.album);
    if (file.duration !== undefined) url.searchParams.set('duration', String(file.duration));
    return fetch(url, {
      method: 'POST',
      headers: {
        cookie: this.cookie,
        origin: this.base.origin,
        'content-type': file.type,
        ...headers,
      },
      body: file.data,
      ...(Buffer.isBuffer(file.data) ? {} : { duplex: 'half' }),
    } as RequestInit);
  }

  async send(text: string): Promise<void> {
    const { status } = await this.post('send', { text });
    check(status === 202, `POST /chat/send answered ${status}`);
  }

  async press(message: number, data: string): Promise<void> {
    const { status } = await this.post('press', { message, data });
    check(status === 202, `POST /chat/press answered ${status}`);
  }

  /** Presses the page's Stop button. */
  async stop(): Promise<void> {
    const { status } = await this.post('stop', {});
    check(status === 202, `POST /chat/stop answered ${status}`);
  }

  /** The conversation as a page shows it now: the last snapshot and every change since. */
  entries(): ChatEntry[] {
    let shown: ChatEntry[] = [];
    for (const { type, data } of this.events) {
      if (type === 'snapshot') shown = [...data.entries];
      else if (type === 'entry') shown.push(data.entry);
      else if (type === 'edit') shown = shown.map((e) => (e.id === data.entry.id ? data.entry : e));
      else if (type === 'delete') shown = shown.filter((e) => e.id !== data.id);
    }
    return shown;
  }

  /** The messages from satchel the page shows, in order. */
  botEntries(): ChatEntry[] {
    return this.entries().filter((e) => e.kind === 'bot');
  }

  /** Waits until `n` messages from satchel arrived; returns them all. */
  waitForBot(n: number, timeout = 10_000): Promise<ChatEntry[]> {
    return this.waitFor(
      () => (this.botEntries().length >= n ? this.botEntries() : undefined),
      `${n} message(s) from satchel`,
      timeout,
    );
  }

  close(): void {
    this.stream?.destroy();
    this.stream = undefined;
  }
}

/** What a message shows: its words, tags out, the page's few entities decoded. */
export function shownText(entry: Pick<ChatEntry, 'text' | 'html'>): string {
  if (entry.html === undefined) return entry.text ?? '';
  return entry.html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}
