/**
 * Fake Telegram Bot API server for end-to-end tests, driven by the real grammY client:
 * `new Bot(TEST_TOKEN, { client: { apiRoot: fake.apiRoot } })`.
 *
 * Routes (telegram-http.ts):
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
 *
 * This class only assembles the fake: each method below is documented where it lives —
 * the call log (telegram-calls.ts), the update queue and long polls (telegram-updates.ts),
 * the webhook (telegram-webhook.ts), users' updates (telegram-user-messages.ts,
 * telegram-user-media.ts), the chats and messages kept (telegram-chats.ts,
 * telegram-bot-messages.ts), files (telegram-file-store.ts) and faults (telegram-faults.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BotMessages } from './telegram-bot-messages.ts';
import { CallLog } from './telegram-calls.ts';
import { Chats } from './telegram-chats.ts';
import { Faults } from './telegram-faults.ts';
import { FileStore } from './telegram-file-store.ts';
import { TelegramHttp } from './telegram-http.ts';
import { UpdateQueue } from './telegram-updates.ts';
import { UserMedia } from './telegram-user-media.ts';
import { UserMessages } from './telegram-user-messages.ts';
import { Waits } from './telegram-waits.ts';
import { Webhook } from './telegram-webhook.ts';

export type { ApiCall } from './telegram-calls.ts';
export type { MessageOpts, UserRef } from './telegram-chats.ts';
export type { Fault } from './telegram-faults.ts';
export type { FileOptions } from './telegram-file-store.ts';
export { preciseNow } from './telegram-wire.ts';

export const TEST_TOKEN = '123456:TEST-token';

export class FakeTelegram {
  readonly apiRoot: string;
  readonly token: string;
  private readonly stopping = new AbortController();
  private readonly log: CallLog;
  private readonly updates: UpdateQueue;
  private readonly webhook: Webhook;
  private readonly userMessages: UserMessages;
  private readonly userMedia: UserMedia;
  private readonly files: FileStore;
  private readonly faults: Faults;
  private readonly chats: Chats;

  private constructor(
    private readonly server: Server,
    opts: { token?: string; botUsername?: string },
  ) {
    const { port } = server.address() as AddressInfo;
    this.apiRoot = `http://127.0.0.1:${port}`;
    this.token = opts.token ?? TEST_TOKEN;
    const waits = new Waits();
    const stopping = this.stopping.signal;
    const chats = new Chats(this.token, opts.botUsername ?? 'satchel_test_bot');
    this.chats = chats;
    this.log = new CallLog(waits);
    this.webhook = new Webhook(waits, stopping);
    this.updates = new UpdateQueue(waits, this.webhook, stopping);
    this.files = new FileStore(waits, stopping);
    this.faults = new Faults();
    this.userMessages = new UserMessages(chats, this.updates);
    this.userMedia = new UserMedia(chats, this.files, this.updates);
    const http = new TelegramHttp({
      token: this.token,
      log: this.log,
      faults: this.faults,
      updates: this.updates,
      webhook: this.webhook,
      files: this.files,
      chats,
      bot: new BotMessages(chats),
      stopping,
    });
    server.on('request', (req, res) => void http.handle(req, res));
  }

  static async start(opts: { token?: string; botUsername?: string } = {}): Promise<FakeTelegram> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return new FakeTelegram(server, opts);
  }

  /** Ends pending long polls with `[]`, drops delayed responses and closes every connection. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.updates.endPolls();
    await new Promise((resolve) => setImmediate(resolve)); // let those responses flush
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // The call log.
  readonly calls: CallLog['calls'] = (...a) => this.log.calls(...a);
  readonly sent: CallLog['sent'] = (...a) => this.log.sent(...a);
  readonly texts: CallLog['texts'] = (...a) => this.log.texts(...a);
  readonly waitForCall: CallLog['waitForCall'] = (...a) => this.log.waitForCall(...a);
  readonly waitForCalls: CallLog['waitForCalls'] = (...a) => this.log.waitForCalls(...a);
  readonly clearCalls: CallLog['clearCalls'] = () => this.log.clearCalls();

  // The update queue and long polls.
  readonly pushUpdate: UpdateQueue['pushUpdate'] = (...a) => this.updates.pushUpdate(...a);
  readonly continueUpdateIdsFrom: UpdateQueue['continueUpdateIdsFrom'] = (...a) =>
    this.updates.continueUpdateIdsFrom(...a);
  readonly confirmedOffset: UpdateQueue['confirmedOffset'] = () => this.updates.confirmedOffset();
  readonly waitForOffset: UpdateQueue['waitForOffset'] = (...a) => this.updates.waitForOffset(...a);
  readonly servedAt: UpdateQueue['servedAt'] = (...a) => this.updates.servedAt(...a);
  readonly pendingPolls: UpdateQueue['pendingPolls'] = () => this.updates.pendingPolls();

  // The webhook.
  readonly deliveries: Webhook['deliveries'] = () => this.webhook.deliveries();
  readonly webhookInfo: Webhook['webhookInfo'] = () => this.webhook.webhookInfo();
  readonly postToWebhook: Webhook['postToWebhook'] = (...a) => this.webhook.postToWebhook(...a);

  // Users' updates.
  readonly text: UserMessages['text'] = (o) => this.userMessages.text(o);
  readonly callback: UserMessages['callback'] = (o) => this.userMessages.callback(o);
  readonly editedText: UserMessages['editedText'] = (o) => this.userMessages.editedText(o);
  readonly topicRenamed: UserMessages['topicRenamed'] = (o) => this.userMessages.topicRenamed(o);
  readonly reaction: UserMessages['reaction'] = (o) => this.userMessages.reaction(o);
  readonly service: UserMessages['service'] = (o) => this.userMessages.service(o);
  /** Gives a user a first name for their later updates (default "User"). */
  readonly nameUser = (userId: number, name: string): void => this.chats.nameUser(userId, name);
  /**
   * A user deletes a forum topic: no update is sent (the Bot API has none for it), and every
   * later call with that `message_thread_id` fails with 400 "message thread not found".
   */
  readonly deleteTopic = (chatId: number, threadId: number): void =>
    this.chats.deleteTopic(chatId, threadId);
  /** What getMe says of privacy mode (`can_read_all_group_messages`; default false, as BotFather sets it). */
  readonly setReadsAllGroupMessages = (reads: boolean): void => {
    this.chats.readsAllGroupMessages = reads;
  };
  readonly topicCreated: UserMessages['topicCreated'] = (o) => this.userMessages.topicCreated(o);
  readonly location: UserMessages['location'] = (o) => this.userMessages.location(o);
  readonly venue: UserMessages['venue'] = (o) => this.userMessages.venue(o);
  readonly contact: UserMessages['contact'] = (o) => this.userMessages.contact(o);
  readonly voice: UserMedia['voice'] = (o) => this.userMedia.voice(o);
  readonly audio: UserMedia['audio'] = (o) => this.userMedia.audio(o);
  readonly photo: UserMedia['photo'] = (o) => this.userMedia.photo(o);
  readonly album: UserMedia['album'] = (o) => this.userMedia.album(o);
  readonly document: UserMedia['document'] = (o) => this.userMedia.document(o);
  readonly sticker: UserMedia['sticker'] = (o) => this.userMedia.sticker(o);
  readonly video: UserMedia['video'] = (o) => this.userMedia.video(o);
  readonly videoNote: UserMedia['videoNote'] = (o) => this.userMedia.videoNote(o);
  readonly animation: UserMedia['animation'] = (o) => this.userMedia.animation(o);

  // Files.
  readonly addFile: FileStore['addFile'] = (...a) => this.files.addFile(...a);
  readonly addLocalFile: FileStore['addLocalFile'] = (...a) => this.files.addLocalFile(...a);
  readonly downloads: FileStore['downloads'] = () => this.files.downloads();
  readonly completedDownloads: FileStore['completedDownloads'] = () =>
    this.files.completedDownloads();
  readonly waitForDownload: FileStore['waitForDownload'] = (...a) =>
    this.files.waitForDownload(...a);

  // Faults and delays.
  readonly fail: Faults['fail'] = (...a) => this.faults.fail(...a);
  readonly failWhen: Faults['failWhen'] = (...a) => this.faults.failWhen(...a);
  readonly failAlways: Faults['failAlways'] = (...a) => this.faults.failAlways(...a);
  readonly pendingFaults: Faults['pendingFaults'] = (...a) => this.faults.pendingFaults(...a);
  readonly clearFaults: Faults['clearFaults'] = () => this.faults.clearFaults();
  readonly delay: Faults['delay'] = (...a) => this.faults.delay(...a);
}
