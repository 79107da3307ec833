/**
 * The fake Telegram server's HTTP side: routing, the token check, and each call's way through
 * the scripted faults and delays to the method that answers it.
 *
 *   POST|GET /bot{token}/{method}          JSON, multipart/form-data or urlencoded params
 *   GET      /file/bot{token}/{file_path}  bytes registered with `addFile`
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BotMessages } from './telegram-bot-messages.ts';
import { type ApiCall, type CallLog, SEND_METHODS } from './telegram-calls.ts';
import type { Chats } from './telegram-chats.ts';
import { type Faults, faultReply } from './telegram-faults.ts';
import type { FileStore } from './telegram-file-store.ts';
import type { UpdateQueue } from './telegram-updates.ts';
import type { Webhook } from './telegram-webhook.ts';
import {
  fail,
  ok,
  type Params,
  preciseNow,
  type Reply,
  readParams,
  send,
} from './telegram-wire.ts';

/** Methods the fake accepts and answers with `true`, with no effect it keeps. */
const TRUE_METHODS = new Set([
  'sendMessageDraft',
  'sendChatAction',
  'answerCallbackQuery',
  'setMyCommands',
  'setMessageReaction',
]);

export interface TelegramParts {
  token: string;
  log: CallLog;
  faults: Faults;
  updates: UpdateQueue;
  webhook: Webhook;
  files: FileStore;
  chats: Chats;
  bot: BotMessages;
  stopping: AbortSignal;
}

export class TelegramHttp {
  constructor(private readonly parts: TelegramParts) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { token, files } = this.parts;
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file && req.method === 'GET') {
        if (file[1] !== token) return send(res, fail(401, 'Unauthorized'));
        return files.download(res, file[2]!);
      }
      const route = /^\/bot([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (!route) return send(res, fail(404, 'Not Found'));
      if (route[1] !== token) return send(res, fail(401, 'Unauthorized'));
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

  /** Records the call, applies a scripted fault or delay, and answers it. */
  private async call(method: string, params: Params, res: ServerResponse): Promise<void> {
    const { log, faults, updates, stopping } = this.parts;
    const call: ApiCall = { method, params, at: Date.now(), receivedAt: preciseNow() };
    const fault = faults.take(method, params);
    if (fault?.status === 'drop' || fault?.status === 'lost') {
      const done = fault.status === 'lost' && method !== 'getUpdates';
      const reply = done ? this.dispatch(method, params) : undefined;
      if (reply?.ok) log.record({ ...call, result: reply.result, lost: true });
      else log.record({ ...call, failed: true });
      res.socket?.destroy();
      return;
    }
    let reply: Reply | undefined;
    if (fault) reply = faultReply(fault);
    else if (method !== 'getUpdates') reply = this.dispatch(method, params);
    if (reply?.ok === false) call.failed = true;
    else if (reply) call.result = reply.result;
    log.record(call);
    const ms = faults.delayOf(method);
    if (ms) {
      try {
        await sleep(ms, undefined, { signal: stopping });
      } catch {
        return; // stopped meanwhile
      }
    }
    if (reply) {
      call.respondedAt = preciseNow();
      send(res, reply);
    } else updates.getUpdates(params, res);
  }

  /** Carries out a Bot API method (all but getUpdates); unknown methods are a 404. */
  private dispatch(method: string, p: Params): Reply {
    const { bot, chats, files, webhook, updates } = this.parts;
    // Any call into a deleted topic (a send, a chat action, an edit) is refused, as Telegram does.
    if (chats.isDeletedTopic(p.chat_id, p.message_thread_id))
      return fail(400, 'Bad Request: message thread not found');
    if (TRUE_METHODS.has(method)) return ok(true);
    if (SEND_METHODS.has(method)) return bot.send(method, p);
    switch (method) {
      case 'getMe':
        return ok({
          ...chats.me(),
          can_join_groups: true,
          can_read_all_group_messages: chats.readsAllGroupMessages,
          supports_inline_queries: false,
        });
      case 'editMessageText':
        return bot.editMessageText(p);
      case 'deleteMessage':
        return bot.deleteMessage(p);
      case 'getFile':
        return files.getFile(p);
      case 'setWebhook':
        return webhook.setWebhook(p);
      case 'deleteWebhook':
        return webhook.deleteWebhook();
      case 'getWebhookInfo':
        return webhook.getWebhookInfo(updates.pending());
      case 'createForumTopic':
        return bot.createForumTopic(p);
      default:
        return fail(404, 'Not Found: method not found');
    }
  }
}
