/**
 * Fake Telegram Bot API server for end-to-end tests, driven by the real grammY client:
 * `new Bot(TEST_TOKEN, { client: { apiRoot: fake.apiRoot } })`.
 *
 * Routes:
 *   POST|GET /bot{token}/{method}          JSON, multipart/form-data or urlencoded params
 *   GET      /file/bot{token}/{file_path}  bytes registered with `addFile` (optionally slow)
 *
 * Every call is recorded (see `calls`, `sent`, `texts`, `waitForCall`); updates pushed with
 * `pushUpdate` and the builders (`text`, `callback`, ...) are served to long polls; faults and
 * delays can be injected per method.
 *
 * Webhooks: after `setWebhook`, updates are POSTed to its URL one at a time, with its
 * `secret_token` in X-Telegram-Bot-Api-Secret-Token, and retried while the answer is not
 * 2xx (as Telegram does); getUpdates then fails with 409. `deliveries` lists the answers,
 * `postToWebhook` sends any body with any secret, and `deleteWebhook` goes back to polling.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundaryOf, coerceField, multipartParams } from './multipart.ts';

export const TEST_TOKEN = '123456:TEST-token';

// biome-ignore lint/suspicious/noExplicitAny: arbitrary Bot API JSON, inspected by tests
type Json = any;
type Params = Record<string, Json>;

export interface ApiCall {
  method: string;
  params: Params;
  /** `Date.now()` when the request was received. */
  at: number;
  /** When the request was received, to a fraction of a millisecond (see `preciseNow`). */
  receivedAt: number;
  /** When its response was sent (as `receivedAt`); unset while a delay holds it. */
  respondedAt?: number;
  /** Set when the call got an error response (injected fault or a natural 400). */
  failed?: boolean;
  /** Carried out, but the answer never reached the client (a `lost` fault). */
  lost?: boolean;
  /** The `result` the call was answered with (not set for getUpdates or failed calls). */
  result?: Json;
}

export type Fault =
  | { status: 429; retryAfter: number }
  | { status: 400 | 401 | 409; description: string }
  | { status: 500 | 502 }
  /** No answer at all: the connection is closed, as when Telegram cannot be reached. */
  | { status: 'drop' }
  /** The call is carried out, but its answer is lost: the connection closes before it. */
  | { status: 'lost' };

/** How `addFile` serves a file. */
export interface FileOptions {
  /** The `file_path` getFile answers (default `files/<fileId>`). */
  filePath?: string;
  /** Wait this long before the download's response starts. */
  delayMs?: number;
  /** Stream the body at about this rate (in small chunks) instead of all at once. */
  bytesPerSecond?: number;
  /** The `file_size` getFile reports (default: the real size); `null` leaves it out. */
  reportedSize?: number | null;
  /** Send a Content-Length header with the download (default true). */
  contentLength?: boolean;
  /** getFile still answers, but the download is a 404 (the link expired). */
  expired?: boolean;
}

interface StoredFile extends FileOptions {
  bytes: Buffer;
  filePath: string;
}

export interface UserRef {
  userId: number;
  /** Defaults to `userId` (a private chat). */
  chatId?: number;
}

type Reply =
  | { ok: true; result: Json }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };

interface FaultRule {
  method: string;
  predicate?: (params: Params) => boolean;
  fault: Fault;
  remaining: number;
}

interface Poll {
  offset: number;
  limit: number;
  finish(updates: Json[]): void;
}

const SEND_METHODS = new Set([
  'sendMessage',
  'sendPhoto',
  'sendVoice',
  'sendAudio',
  'sendDocument',
]);
const TRUE_METHODS = new Set([
  'sendMessageDraft',
  'sendChatAction',
  'answerCallbackQuery',
  'setMyCommands',
  'deleteMessage',
  'deleteWebhook',
]);
const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are ' +
  'exactly the same as a content and reply markup of the current message';
const ICON_COLOR = 7322096;
const PHOTO_WIDTHS = [90, 320, 800, 1280, 2560];
/** Chunks per second of a slow (`bytesPerSecond`) download. */
const CHUNKS_PER_SECOND = 20;

const ok = (result: Json): Reply => ({ ok: true, result });
const fail = (error_code: number, description: string): Reply => ({
  ok: false,
  error_code,
  description,
});
const unixNow = () => Math.floor(Date.now() / 1000);
/** `Date.now()`'s clock to a fraction of a millisecond: the fakes' timestamps for benchmarks. */
export const preciseNow = () => performance.timeOrigin + performance.now();
const user = (id: number) => ({ id, is_bot: false, first_name: 'User' });

export class FakeTelegram {
  readonly apiRoot: string;
  readonly token: string;
  private readonly botUsername: string;
  private readonly log: ApiCall[] = [];
  private readonly listeners = new Set<() => boolean>();
  private queue: Json[] = [];
  private readonly polls = new Set<Poll>();
  private nextUpdateId = 1;
  private confirmed = 0;
  /** When a getUpdates answer first carried each update (`preciseNow`), by update_id. */
  private readonly served = new Map<number, number>();
  private readonly files = new Map<string, StoredFile>();
  private readonly downloaded: string[] = [];
  private readonly completed: string[] = [];
  private faults: FaultRule[] = [];
  private readonly delays = new Map<string, number>();
  /** Bot-sent messages by `chat:message_id`, with their reply markup serialized for comparison. */
  private readonly messages = new Map<string, { message: Json; markup: string }>();
  private readonly userMessageIds = new Map<number, number>();
  /** Messages users sent (and topic creations), by `chat:message_id`, for replies to them. */
  private readonly userMessages = new Map<string, Json>();
  private nextAlbumId = 1;
  private readonly botMessageIds = new Map<number, number>();
  private readonly chats = new Map<number, Json>();
  private nextTopicId = 100;
  private nextCallbackId = 1;
  private nextSentFileId = 1;
  private readonly stopping = new AbortController();
  private webhook: { url: string; secret: string | undefined } | undefined;
  private readonly delivered: { updateId: number; status: number }[] = [];
  private delivering: Promise<void> = Promise.resolve();

  private constructor(
    private readonly server: Server,
    opts: { token?: string; botUsername?: string },
  ) {
    const { port } = server.address() as AddressInfo;
    this.apiRoot = `http://127.0.0.1:${port}`;
    this.token = opts.token ?? TEST_TOKEN;
    this.botUsername = opts.botUsername ?? 'satchel_test_bot';
  }

  static async start(opts: { token?: string; botUsername?: string } = {}): Promise<FakeTelegram> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const fake = new FakeTelegram(server, opts);
    server.on('request', (req, res) => void fake.handle(req, res));
    return fake;
  }

  /** Ends pending long polls with `[]`, drops delayed responses and closes every connection. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const poll of [...this.polls]) poll.finish([]);
    await new Promise((resolve) => setImmediate(resolve)); // let those responses flush
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // --- call log -------------------------------------------------------------------------------

  /** Recorded calls of `method`, or of every method except getUpdates. */
  calls(method?: string): ApiCall[] {
    return this.log.filter((c) =>
      method === undefined ? c.method !== 'getUpdates' : c.method === method,
    );
  }

  /** Successful send* calls (optionally to one chat), in order. */
  sent(chatId?: number): ApiCall[] {
    return this.log.filter(
      (c) =>
        SEND_METHODS.has(c.method) &&
        !c.failed &&
        (chatId === undefined || String(c.params.chat_id) === String(chatId)),
    );
  }

  /** `text` of successful sendMessage calls (optionally to one chat). */
  texts(chatId?: number): string[] {
    return this.sent(chatId)
      .filter((c) => c.method === 'sendMessage')
      .map((c) => String(c.params.text));
  }

  waitForCall(
    method: string,
    predicate?: (c: ApiCall) => boolean,
    timeoutMs = 5000,
  ): Promise<ApiCall> {
    return this.waitForCalls(method, 1, predicate, timeoutMs).then((calls) => calls[0]!);
  }

  waitForCalls(
    method: string,
    count: number,
    predicate?: (c: ApiCall) => boolean,
    timeoutMs = 5000,
  ): Promise<ApiCall[]> {
    const matching = () => this.calls(method).filter((c) => safely(() => predicate?.(c) ?? true));
    return this.waitFor(
      () => {
        const found = matching();
        return found.length >= count ? found.slice(0, count) : undefined;
      },
      timeoutMs,
      () =>
        `waitForCalls: expected ${count} ${method} call(s)${predicate ? ' matching the predicate' : ''} ` +
        `within ${timeoutMs}ms, got ${matching().length}. Recorded: ${this.summary()}`,
    );
  }

  clearCalls(): void {
    this.log.length = 0;
  }

  /** When a getUpdates answer first carried `updateId` (`preciseNow`); undefined: not yet. */
  servedAt(updateId: number): number | undefined {
    return this.served.get(updateId);
  }

  /** Number of getUpdates requests currently held open. */
  pendingPolls(): number {
    return this.polls.size;
  }

  // --- updates --------------------------------------------------------------------------------

  /**
   * Makes the next update_id at least `id`, as for a bot whose earlier updates another
   * server (or a restored backup) has seen.
   */
  continueUpdateIdsFrom(id: number): void {
    this.nextUpdateId = Math.max(this.nextUpdateId, id);
  }

  /** Queues an update (assigning the next update_id) and wakes a pending long poll. */
  pushUpdate(update: object): number {
    const update_id = this.nextUpdateId++;
    if (this.webhook) {
      this.deliver({ update_id, ...update });
      return update_id;
    }
    this.queue.push({ update_id, ...update });
    // Deferred so that updates pushed in the same tick are delivered as one batch.
    queueMicrotask(() => {
      for (const poll of [...this.polls]) {
        const ready = this.queue.filter((u) => u.update_id >= poll.offset).slice(0, poll.limit);
        if (ready.length > 0) poll.finish(ready);
      }
    });
    return update_id;
  }

  /**
   * A text message. `replyTo` sets `reply_to_message` verbatim; `replyToMessageId` (see
   * MessageOpts) replies to a message sent earlier in the chat, by the user or the bot.
   */
  text(o: UserRef & MessageOpts & { text: string; replyTo?: object }): number {
    const message = this.userMessage(o);
    message.text = o.text;
    if (o.text.startsWith('/')) {
      const length = o.text.split(/\s/, 1)[0]!.length;
      message.entities = [{ type: 'bot_command', offset: 0, length }];
    }
    if (o.replyTo) message.reply_to_message = o.replyTo;
    return this.pushUpdate({ message });
  }

  callback(o: UserRef & { data: string; messageId?: number; threadId?: number }): number {
    const chatId = o.chatId ?? o.userId;
    const chat = this.chat(chatId, o.userId);
    const messageId = o.messageId ?? this.botMessageIds.get(chatId) ?? 1;
    const stored = this.messages.get(`${chatId}:${messageId}`)?.message;
    const message = {
      ...(stored ?? { message_id: messageId, from: this.me(), chat, date: unixNow() }),
    };
    if (o.threadId !== undefined) Object.assign(message, thread(o.threadId));
    return this.pushUpdate({
      callback_query: {
        id: `cb${this.nextCallbackId++}`,
        from: user(o.userId),
        chat_instance: `ci${chatId}`,
        data: o.data,
        message,
      },
    });
  }

  /** A voice note (Telegram records them as `audio/ogg`, served as `voice/file_N.oga`). */
  voice(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        duration?: number;
        fileSize?: number;
        mimeType?: string;
        caption?: string;
      },
  ): number {
    const message = this.userMessage(o);
    message.voice = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      duration: o.duration ?? 3,
      mime_type: o.mimeType ?? 'audio/ogg',
      file_size: o.fileSize ?? this.sizeOf(o.fileId, 12_000),
    };
    if (o.caption !== undefined) message.caption = o.caption;
    return this.pushUpdate({ message });
  }

  /** An audio file (music, a recording sent as a file); `file_name` only when given. */
  audio(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        fileName?: string;
        mimeType?: string;
        duration?: number;
        fileSize?: number;
        caption?: string;
      },
  ): number {
    const message = this.userMessage(o);
    message.audio = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      duration: o.duration ?? 30,
      mime_type: o.mimeType ?? 'audio/mpeg',
      file_size: o.fileSize ?? this.sizeOf(o.fileId, 250_000),
      ...(o.fileName === undefined ? {} : { file_name: o.fileName }),
    };
    if (o.caption !== undefined) message.caption = o.caption;
    return this.pushUpdate({ message });
  }

  photo(
    o: UserRef & MessageOpts & { fileIds: string[]; caption?: string; mediaGroupId?: string },
  ): number {
    const message = this.userMessage(o);
    message.photo = o.fileIds.map((fileId, i) => {
      const width = PHOTO_WIDTHS[i] ?? 2560 * (i - 3);
      const file_size = this.sizeOf(fileId, (i + 1) * 10_000);
      const height = Math.round(width * 0.75);
      return { file_id: fileId, file_unique_id: `u-${fileId}`, width, height, file_size };
    });
    if (o.caption !== undefined) message.caption = o.caption;
    if (o.mediaGroupId !== undefined) message.media_group_id = o.mediaGroupId;
    return this.pushUpdate({ message });
  }

  /**
   * An album: one update per photo (`fileIds[i]` are photo i's sizes, smallest first), all
   * with the same `media_group_id`; the caption rides on the first, as Telegram sends it.
   * Returns the update ids in order.
   */
  album(
    o: UserRef & MessageOpts & { fileIds: string[][]; caption?: string; groupId?: string },
  ): number[] {
    const { fileIds, caption, groupId, ...rest } = o;
    const mediaGroupId = groupId ?? `album-${this.nextAlbumId++}`;
    return fileIds.map((sizes, i) =>
      this.photo({
        ...rest,
        fileIds: sizes,
        mediaGroupId,
        ...(i === 0 && caption !== undefined ? { caption } : {}),
      }),
    );
  }

  document(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        fileName: string;
        mimeType?: string;
        fileSize?: number;
        caption?: string;
      },
  ): number {
    const message = this.userMessage(o);
    message.document = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      file_name: o.fileName,
      mime_type: o.mimeType ?? 'application/octet-stream',
      file_size: o.fileSize ?? this.sizeOf(o.fileId, 1000),
    };
    if (o.caption !== undefined) message.caption = o.caption;
    return this.pushUpdate({ message });
  }

  location(
    o: UserRef &
      MessageOpts & {
        latitude: number;
        longitude: number;
        horizontalAccuracy?: number;
        livePeriod?: number;
      },
  ): number {
    const message = this.userMessage(o);
    message.location = {
      latitude: o.latitude,
      longitude: o.longitude,
      ...(o.horizontalAccuracy === undefined ? {} : { horizontal_accuracy: o.horizontalAccuracy }),
      ...(o.livePeriod === undefined ? {} : { live_period: o.livePeriod }),
    };
    return this.pushUpdate({ message });
  }

  /** A venue; like Telegram, the message also carries the venue's `location`. */
  venue(
    o: UserRef &
      MessageOpts & { latitude: number; longitude: number; title: string; address: string },
  ): number {
    const message = this.userMessage(o);
    const location = { latitude: o.latitude, longitude: o.longitude };
    message.venue = { location, title: o.title, address: o.address };
    message.location = { ...location };
    return this.pushUpdate({ message });
  }

  contact(
    o: UserRef &
      MessageOpts & {
        phoneNumber: string;
        firstName: string;
        lastName?: string;
        contactUserId?: number;
      },
  ): number {
    const message = this.userMessage(o);
    message.contact = {
      phone_number: o.phoneNumber,
      first_name: o.firstName,
      ...(o.lastName === undefined ? {} : { last_name: o.lastName }),
      ...(o.contactUserId === undefined ? {} : { user_id: o.contactUserId }),
    };
    return this.pushUpdate({ message });
  }

  sticker(o: UserRef & MessageOpts & { emoji?: string; fileId?: string }): number {
    const message = this.userMessage(o);
    const fileId = o.fileId ?? 'sticker-1';
    message.sticker = {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      type: 'regular',
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
      ...(o.emoji === undefined ? {} : { emoji: o.emoji }),
    };
    return this.pushUpdate({ message });
  }

  video(o: UserRef & MessageOpts & VideoOpts): number {
    const message = this.userMessage(o);
    const fileId = o.fileId ?? 'video-1';
    message.video = {
      ...this.videoFile(fileId, o),
      width: 1280,
      height: 720,
      mime_type: 'video/mp4',
    };
    if (o.caption !== undefined) message.caption = o.caption;
    return this.pushUpdate({ message });
  }

  /** A round video message (no caption in Telegram). */
  videoNote(o: UserRef & MessageOpts & Omit<VideoOpts, 'caption'>): number {
    const message = this.userMessage(o);
    message.video_note = { ...this.videoFile(o.fileId ?? 'video-note-1', o), length: 240 };
    return this.pushUpdate({ message });
  }

  /** A GIF; like Telegram, the message also carries it as a `document`. */
  animation(o: UserRef & MessageOpts & VideoOpts): number {
    const message = this.userMessage(o);
    const fileId = o.fileId ?? 'animation-1';
    const file = { file_name: 'animation.mp4', mime_type: 'video/mp4' };
    message.animation = { ...this.videoFile(fileId, o), width: 320, height: 240, ...file };
    message.document = {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      ...file,
      file_size: message.animation.file_size,
    };
    if (o.caption !== undefined) message.caption = o.caption;
    return this.pushUpdate({ message });
  }

  editedText(o: UserRef & { messageId: number; text: string }): number {
    const chatId = o.chatId ?? o.userId;
    const edited_message = {
      message_id: o.messageId,
      from: user(o.userId),
      chat: this.chat(chatId, o.userId),
      date: unixNow() - 60,
      edit_date: unixNow(),
      text: o.text,
    };
    // A later reply to the message quotes its new text; the update already queued keeps the old.
    const key = `${chatId}:${o.messageId}`;
    const original = this.userMessages.get(key);
    if (original?.text !== undefined) this.userMessages.set(key, { ...original, text: o.text });
    return this.pushUpdate({ edited_message });
  }

  topicCreated(o: { userId: number; chatId: number; threadId: number; name: string }): number {
    const chat = this.chat(o.chatId, o.userId, 'supergroup', true);
    const message = {
      message_id: o.threadId, // the topic's id is the id of its creation message
      from: user(o.userId),
      chat,
      date: unixNow(),
      ...thread(o.threadId),
      forum_topic_created: { name: o.name, icon_color: ICON_COLOR },
    };
    this.userMessages.set(`${o.chatId}:${o.threadId}`, message);
    return this.pushUpdate({ message });
  }

  /** Highest `offset` a getUpdates call has sent: every update below it is confirmed. */
  confirmedOffset(): number {
    return this.confirmed;
  }

  async waitForOffset(offset: number, timeoutMs = 5000): Promise<void> {
    await this.waitFor(
      () => (this.confirmed >= offset ? true : undefined),
      timeoutMs,
      () =>
        `waitForOffset: offset ${offset} not confirmed within ${timeoutMs}ms (confirmed: ${this.confirmed})`,
    );
  }

  // --- files ----------------------------------------------------------------------------------

  /**
   * Registers a file for getFile and download. The third argument is its `file_path`, or
   * options: a slow download (`delayMs`, `bytesPerSecond`), a `file_size` that getFile
   * reports differently (`reportedSize`), no Content-Length header, an expired link.
   */
  addFile(fileId: string, bytes: Buffer, options: string | FileOptions = {}): void {
    const opts = typeof options === 'string' ? { filePath: options } : options;
    this.files.set(fileId, { ...opts, bytes, filePath: opts.filePath ?? `files/${fileId}` });
  }

  /** File paths whose download was requested (with the right token), in order. */
  downloads(): string[] {
    return [...this.downloaded];
  }

  /** File paths whose download body was sent in full, in order. */
  completedDownloads(): string[] {
    return [...this.completed];
  }

  /** Resolves once a download (of `filePath`, when given) has been requested. */
  async waitForDownload(filePath?: string, timeoutMs = 5000): Promise<void> {
    const started = () => this.downloaded.some((p) => filePath === undefined || p === filePath);
    await this.waitFor(
      () => (started() ? true : undefined),
      timeoutMs,
      () =>
        `waitForDownload: no download${filePath ? ` of ${filePath}` : ''} within ${timeoutMs}ms ` +
        `(downloads: ${this.downloaded.join(', ') || 'none'})`,
    );
  }

  // --- faults ---------------------------------------------------------------------------------

  fail(method: string, fault: Fault, times = 1): void {
    this.faults.push({ method, fault, remaining: times });
  }

  failWhen(method: string, predicate: (params: Params) => boolean, fault: Fault, times = 1): void {
    this.faults.push({ method, predicate, fault, remaining: times });
  }

  failAlways(method: string, fault: Fault): void {
    this.faults.push({ method, fault, remaining: Number.POSITIVE_INFINITY });
  }

  /** Calls still to be failed by injected faults (of `method` only, when given). */
  pendingFaults(method?: string): number {
    return this.faults
      .filter((r) => method === undefined || r.method === method)
      .reduce((n, r) => n + r.remaining, 0);
  }

  clearFaults(): void {
    this.faults = [];
  }

  /** Responds to every later call of `method` after `ms` (0 removes the delay). */
  delay(method: string, ms: number): void {
    if (ms > 0) this.delays.set(method, ms);
    else this.delays.delete(method);
  }

  // --- HTTP -----------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', this.apiRoot);
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file && req.method === 'GET') return this.download(res, file[1]!, file[2]!);
      const route = /^\/bot([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (!route) return send(res, fail(404, 'Not Found'));
      if (route[1] !== this.token) return send(res, fail(401, 'Unauthorized'));
      let params: Params;
      try {
        params = await readParams(req, url);
      } catch (err) {
        return send(res, fail(400, `Bad Request: ${(err as Error).message}`));
      }
      await this.call(route[2]!, params, res);
    } catch (err) {
      send(res, fail(500, `Internal Server Error: ${(err as Error).message}`));
    }
  }

  private async call(method: string, params: Params, res: ServerResponse): Promise<void> {
    const call: ApiCall = { method, params, at: Date.now(), receivedAt: preciseNow() };
    const fault = this.takeFault(method, params);
    if (fault?.status === 'drop' || fault?.status === 'lost') {
      const done = fault.status === 'lost' && method !== 'getUpdates';
      const reply = done ? this.dispatch(method, params) : undefined;
      if (reply?.ok) this.log.push({ ...call, result: reply.result, lost: true });
      else this.log.push({ ...call, failed: true });
      this.notify();
      res.socket?.destroy();
      return;
    }
    let reply: Reply | undefined;
    if (fault) reply = faultReply(fault);
    else if (method !== 'getUpdates') reply = this.dispatch(method, params);
    if (reply?.ok === false) call.failed = true;
    else if (reply) call.result = reply.result;
    this.log.push(call);
    this.notify();
    const ms = this.delays.get(method);
    if (ms) {
      try {
        await sleep(ms, undefined, { signal: this.stopping.signal });
      } catch {
        return; // stopped meanwhile
      }
    }
    if (reply) {
      call.respondedAt = preciseNow();
      send(res, reply);
    } else this.getUpdates(params, res);
  }

  /** Answers to webhook deliveries, in order (retries included). */
  deliveries(): { updateId: number; status: number }[] {
    return [...this.delivered];
  }

  /** The webhook set with setWebhook, if any. */
  webhookInfo(): { url: string; secret: string | undefined } | undefined {
    return this.webhook && { ...this.webhook };
  }

  /**
   * POSTs `body` to the webhook as Telegram would, with `secret` (default: the one set) in
   * the secret header (`null` sends none). Returns the status and body of the answer.
   */
  async postToWebhook(
    body: object,
    secret: string | null = this.webhook?.secret ?? null,
  ): Promise<{ status: number; body: string }> {
    if (!this.webhook) throw new Error('FakeTelegram: no webhook is set');
    const response = await fetch(this.webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  }

  /** Queues one delivery; each waits for the one before, and is retried until it is taken. */
  private deliver(update: Json): void {
    this.delivering = this.delivering.then(async () => {
      for (let attempt = 1; attempt <= 20 && !this.stopping.signal.aborted; attempt++) {
        const status = await this.postToWebhook(update).then(
          (r) => r.status,
          () => 0,
        );
        this.delivered.push({ updateId: update.update_id, status });
        this.notify();
        if (status >= 200 && status < 300) return;
        await sleep(50 * attempt, undefined, { signal: this.stopping.signal }).catch(() => {});
      }
    });
  }

  private getUpdates(params: Params, res: ServerResponse): void {
    if (this.webhook) {
      send(
        res,
        fail(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        ),
      );
      return;
    }
    const offset = Number(params.offset ?? 0);
    const limit = Math.min(Math.max(Number(params.limit ?? 100), 1), 100);
    const timeout = Number(params.timeout ?? 0);
    if (offset > 0) {
      this.queue = this.queue.filter((u) => u.update_id >= offset);
      if (offset > this.confirmed) {
        this.confirmed = offset;
        this.notify();
      }
    }
    const ready = this.queue.filter((u) => u.update_id >= offset).slice(0, limit);
    if (ready.length > 0 || timeout <= 0 || this.stopping.signal.aborted) {
      this.answerPoll(res, ready);
      return;
    }
    const poll: Poll = {
      offset,
      limit,
      finish: (updates) => {
        clearTimeout(timer);
        this.polls.delete(poll);
        this.answerPoll(res, updates);
      },
    };
    const timer = setTimeout(() => poll.finish([]), timeout * 1000);
    // `res` (not `req`) emits 'close' when the client goes away before we answer.
    res.on('close', () => {
      if (this.polls.delete(poll)) clearTimeout(timer);
    });
    this.polls.add(poll);
  }

  /** Answers a getUpdates with `updates`, noting when each was first served. */
  private answerPoll(res: ServerResponse, updates: Json[]): void {
    const now = preciseNow();
    for (const u of updates) if (!this.served.has(u.update_id)) this.served.set(u.update_id, now);
    send(res, ok(updates));
  }

  private async download(res: ServerResponse, token: string, rawPath: string): Promise<void> {
    const path = decodeURIComponent(rawPath);
    const file = [...this.files.values()].find((f) => f.filePath === path);
    if (token !== this.token || !file || file.expired) {
      send(res, token === this.token ? fail(404, 'Not Found') : fail(401, 'Unauthorized'));
      return;
    }
    this.downloaded.push(path);
    this.notify();
    const { bytes } = file;
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const signal = AbortSignal.any([this.stopping.signal, gone.signal]);
    try {
      if (file.delayMs) await sleep(file.delayMs, undefined, { signal });
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        ...(file.contentLength === false ? {} : { 'content-length': bytes.length }),
      });
      const chunk = file.bytesPerSecond
        ? Math.max(1, Math.ceil(file.bytesPerSecond / CHUNKS_PER_SECOND))
        : bytes.length;
      for (let at = 0; at < bytes.length; at += chunk) {
        if (at > 0) await sleep(1000 / CHUNKS_PER_SECOND, undefined, { signal });
        res.write(bytes.subarray(at, at + chunk));
      }
      res.end();
      this.completed.push(path);
      this.notify();
    } catch {
      res.destroy(); // the client went away, or the fake stopped
    }
  }

  // --- methods --------------------------------------------------------------------------------

  private dispatch(method: string, p: Params): Reply {
    if (TRUE_METHODS.has(method)) {
      if (method === 'deleteMessage') this.messages.delete(`${p.chat_id}:${p.message_id}`);
      if (method === 'deleteWebhook') this.webhook = undefined;
      return ok(true);
    }
    if (SEND_METHODS.has(method)) return this.sendMessageLike(method, p);
    switch (method) {
      case 'getMe':
        return ok({
          ...this.me(),
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'editMessageText':
        return this.editMessageText(p);
      case 'getFile': {
        const file = this.files.get(String(p.file_id));
        if (!file) return fail(400, 'Bad Request: invalid file_id');
        const { file_id } = p;
        const { bytes, filePath, reportedSize } = file;
        const size = reportedSize === undefined ? bytes.length : reportedSize;
        return ok({
          file_id,
          file_unique_id: `u-${file_id}`,
          ...(size === null ? {} : { file_size: size }),
          file_path: filePath,
        });
      }
      case 'setWebhook':
        if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url))
          return fail(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
        this.webhook = { url: p.url, secret: p.secret_token };
        return ok(true);
      case 'getWebhookInfo':
        return ok({
          url: this.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: this.queue.length,
        });
      case 'createForumTopic':
        return ok({ message_thread_id: this.nextTopicId++, name: p.name, icon_color: ICON_COLOR });
      default:
        return fail(404, 'Not Found: method not found');
    }
  }

  private sendMessageLike(method: string, p: Params): Reply {
    if (p.chat_id === undefined || p.chat_id === '')
      return fail(400, 'Bad Request: chat_id is empty');
    const chatId = Number(p.chat_id);
    const message: Json = {
      message_id: this.next(this.botMessageIds, chatId, 1000),
      from: this.me(),
      chat: this.chats.get(chatId) ?? this.chat(chatId, chatId),
      date: unixNow(),
    };
    if (p.message_thread_id !== undefined) Object.assign(message, thread(p.message_thread_id));
    if (method === 'sendMessage') {
      const invalid = checkText(p.text, p.parse_mode);
      if (invalid) return invalid;
      message.text = p.text;
    } else {
      if (typeof p.caption === 'string' && visibleLength(p.caption, p.parse_mode) > 1024) {
        return fail(400, 'Bad Request: message caption is too long');
      }
      const kind = method.slice(4).toLowerCase(); // sendPhoto -> photo
      message[kind] = this.media(kind, p[kind], p);
      if (p.caption !== undefined) message.caption = p.caption;
    }
    if (p.reply_markup?.inline_keyboard) message.reply_markup = p.reply_markup;
    this.remember(message, p.reply_markup);
    return ok(message);
  }

  private editMessageText(p: Params): Reply {
    const stored = this.messages.get(`${p.chat_id}:${p.message_id}`);
    if (!stored) return fail(400, 'Bad Request: message to edit not found');
    if (stored.message.text === undefined) {
      return fail(400, 'Bad Request: there is no text in the message to edit');
    }
    const invalid = checkText(p.text, p.parse_mode);
    if (invalid) return invalid;
    if (
      stored.message.text === p.text &&
      stored.markup === JSON.stringify(p.reply_markup ?? null)
    ) {
      return fail(400, NOT_MODIFIED);
    }
    const message = { ...stored.message, text: p.text, edit_date: unixNow() };
    delete message.reply_markup;
    if (p.reply_markup?.inline_keyboard) message.reply_markup = p.reply_markup;
    this.remember(message, p.reply_markup);
    return ok(message);
  }

  private media(kind: string, input: Json, p: Params): Json {
    const upload = typeof input === 'object' && input !== null ? input : undefined;
    const file_id =
      typeof input === 'string' && !input.includes('://') ? input : `sent-${this.nextSentFileId++}`;
    const base = { file_id, file_unique_id: `u-${file_id}`, file_size: upload?.size ?? 1000 };
    if (kind === 'photo') return [{ ...base, width: 1280, height: 960 }];
    if (kind === 'document') return { ...base, file_name: upload?.filename ?? 'document' };
    return { ...base, duration: Number(p.duration ?? 1) };
  }

  // --- helpers --------------------------------------------------------------------------------

  private me() {
    const id = Number(this.token.split(':')[0]) || 123456;
    return { id, is_bot: true, first_name: 'Satchel', username: this.botUsername };
  }

  private next(counters: Map<number, number>, chatId: number, first: number): number {
    const id = (counters.get(chatId) ?? first - 1) + 1;
    counters.set(chatId, id);
    return id;
  }

  /** The chat object for `chatId`, remembered so bot replies and later updates agree. */
  private chat(chatId: number, userId: number, type?: string, isForum?: boolean): Json {
    const known = this.chats.get(chatId);
    const chatType =
      type ?? known?.type ?? (chatId === userId || chatId > 0 ? 'private' : 'supergroup');
    const chat =
      chatType === 'private'
        ? { id: chatId, type: chatType, first_name: 'User' }
        : { id: chatId, type: chatType, title: 'Test Group' };
    if (isForum ?? known?.is_forum) Object.assign(chat, { is_forum: true });
    this.chats.set(chatId, chat);
    return chat;
  }

  private userMessage(o: UserRef & MessageOpts): Json {
    const chatId = o.chatId ?? o.userId;
    const message: Json = {
      message_id: this.next(this.userMessageIds, chatId, 1),
      from: user(o.userId),
      chat: this.chat(chatId, o.userId, o.chatType, o.isForum),
      date: unixNow(),
    };
    if (o.threadId !== undefined) Object.assign(message, thread(o.threadId));
    if (o.replyToMessageId !== undefined) {
      message.reply_to_message = this.repliedTo(chatId, o.replyToMessageId);
    }
    if (o.quote !== undefined) message.quote = { text: o.quote, position: 0, is_manual: true };
    this.userMessages.set(`${chatId}:${message.message_id}`, message);
    return message;
  }

  /**
   * The stored message `messageId` of the chat, as a `reply_to_message`: the bot's first,
   * then the user's. Telegram never nests replies further, so its own reply is left out.
   */
  private repliedTo(chatId: number, messageId: number): Json {
    const key = `${chatId}:${messageId}`;
    const stored = this.messages.get(key)?.message ?? this.userMessages.get(key);
    if (!stored) throw new Error(`replyToMessageId: no message ${messageId} in chat ${chatId}`);
    const { reply_to_message: _nested, quote: _quote, ...target } = stored;
    return structuredClone(target);
  }

  private sizeOf(fileId: string, fallback: number): number {
    return this.files.get(fileId)?.bytes.length ?? fallback;
  }

  private videoFile(fileId: string, o: Omit<VideoOpts, 'caption'>): Json {
    return {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      duration: o.duration ?? 5,
      file_size: o.fileSize ?? this.sizeOf(fileId, 500_000),
    };
  }

  private remember(message: Json, markup: Json): void {
    const key = `${message.chat.id}:${message.message_id}`;
    this.messages.set(key, { message, markup: JSON.stringify(markup ?? null) });
  }

  private takeFault(method: string, params: Params): Fault | undefined {
    const rule = this.faults.find(
      (r) => r.method === method && (!r.predicate || safely(() => r.predicate!(params))),
    );
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.faults = this.faults.filter((r) => r !== rule);
    return rule.fault;
  }

  private waitFor<T>(check: () => T | undefined, timeoutMs: number, describe: () => string) {
    const error = new Error('timeout'); // created here so the stack points at the test
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (value === undefined) return false;
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        error.message = describe();
        reject(error);
      }, timeoutMs);
      if (!listener()) this.listeners.add(listener);
    });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) if (listener()) this.listeners.delete(listener);
  }

  private summary(): string {
    const polls = this.calls('getUpdates').length;
    const lines = this.calls().map((c) => {
      const text = c.params.text ?? c.params.caption;
      const detail = [c.params.chat_id, text === undefined ? undefined : JSON.stringify(text)]
        .filter((x) => x !== undefined)
        .join(' ');
      return `${c.method}${detail ? `(${detail.slice(0, 60)})` : ''}${c.failed ? ' [failed]' : ''}`;
    });
    return `${lines.length ? lines.join(', ') : 'none'} (+${polls} getUpdates)`;
  }
}

export interface MessageOpts {
  chatType?: 'private' | 'group' | 'supergroup';
  threadId?: number;
  isForum?: boolean;
  /**
   * Reply to a message sent earlier in this chat (by the user or the bot): it becomes the
   * `reply_to_message`. In a forum topic, pass the topic's id to reply to its creation
   * message, as Telegram clients do for every message in a topic.
   */
  replyToMessageId?: number;
  /** The part of the replied-to message the user selected (`message.quote.text`). */
  quote?: string;
}

interface VideoOpts {
  fileId?: string;
  duration?: number;
  fileSize?: number;
  caption?: string;
}

function thread(threadId: number) {
  return { message_thread_id: threadId, is_topic_message: true };
}

function safely(fn: () => boolean): boolean {
  try {
    return fn();
  } catch {
    return false;
  }
}

function checkText(text: unknown, parseMode: unknown): Reply | undefined {
  if (typeof text !== 'string' || text.trim() === '')
    return fail(400, 'Bad Request: message text is empty');
  if (visibleLength(text, parseMode) > 4096) return fail(400, 'Bad Request: message is too long');
  return undefined;
}

/** Telegram measures length after parsing entities: tags do not count, an entity is one unit. */
function visibleLength(text: string, parseMode: unknown): number {
  if (parseMode !== 'HTML') return text.length;
  return text.replace(/<[^>]*>/g, '').replace(/&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/gi, '_').length;
}

function faultReply(fault: Exclude<Fault, { status: 'drop' | 'lost' }>): Reply {
  if (fault.status === 429) {
    const { retryAfter } = fault;
    return {
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      parameters: { retry_after: retryAfter },
    };
  }
  if (fault.status === 400 || fault.status === 401 || fault.status === 409)
    return fail(fault.status, fault.description);
  return fail(fault.status, fault.status === 500 ? 'Internal Server Error' : 'Bad Gateway');
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const body = JSON.stringify(reply);
  res.writeHead(reply.ok ? 200 : reply.error_code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  const params: Params = {};
  for (const [k, v] of url.searchParams) params[k] = coerceField(k, v);
  if (body.length === 0) return params;
  if (type.includes('application/json')) {
    return { ...params, ...(JSON.parse(body.toString('utf8')) as Params) };
  }
  const boundary = boundaryOf(type);
  if (type.includes('multipart/form-data') && boundary) {
    return { ...params, ...multipartParams(body, boundary) };
  }
  for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = coerceField(k, v);
  return params;
}
