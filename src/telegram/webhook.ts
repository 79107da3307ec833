import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Bot, GrammyError, webhookCallback } from 'grammy';
import { background } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import type { NumberedInbox } from '../core/inbox.ts';
import type { Logger } from '../core/ports.ts';
import type { InboundEvent } from '../core/types.ts';
import { type ConsumerDeps, createConsumer, replayStored } from './consume.ts';
import { toChannelError } from './errors.ts';
import { retryUntilDone, TELEGRAM_BACKOFF, telegramOutageLog } from './retry.ts';
import type { WebhookConfig } from './settings.ts';
import { updateIdOf } from './update-schema.ts';
import { ALLOWED_UPDATES } from './update-supplier.ts';
import { answer, limitedHttpAdapter, WebhookRequestError } from './webhook-body.ts';

export interface WebhookIngressDeps extends Pick<ConsumerDeps, 'localFiles' | 'owner'> {
  bot: Bot;
  inbox: NumberedInbox;
  clock: Clock;
  log: Logger;
  webhook: WebhookConfig;
  /** Takes one event (the pipeline's entry); must not throw. */
  onEvent(event: InboundEvent): void;
  /** Telegram refused the webhook for good (a revoked token, a URL it will not call). */
  onStopped?(error: unknown): void;
  /** Telegram answered getMe and took the webhook. */
  onConnected?(): void;
  /**
   * Telegram is heard from again: it answered after failing, or an update came in. What
   * waits for Telegram (the outbox) can go now.
   */
  onReachable?(): void;
}

/**
 * Webhook mode, the alternative to long polling with the same contract: Telegram POSTs each
 * update to TELEGRAM_WEBHOOK_URL; grammY's webhookCallback on node:http checks the
 * X-Telegram-Bot-Api-Secret-Token header (a wrong or missing one gets 401 and nothing runs),
 * and the update is written to the durable inbox before the 200 goes back, so Telegram
 * forgets only what is stored. A repeated delivery of a stored update id is answered 200 and
 * ignored; a failed write answers 500 and Telegram delivers again. A body over 1 MB is
 * answered 413, and one that is not a JSON object (bad JSON, `null`) 400, before grammY
 * sees it. Same interface as createIngress (start, stop, status).
 */
export function createWebhookIngress(deps: WebhookIngressDeps) {
  const { bot, inbox, clock, log, webhook } = deps;
  const consume = createConsumer(deps);
  const path = new URL(webhook.url).pathname;
  const stopping = new AbortController();
  let server: Server | undefined;
  let registered = false;
  let lastUpdateAt: number | undefined;

  bot.use((ctx) => {
    const updateId = updateIdOf(ctx.update);
    if (updateId === undefined) return; // grammY does not pass an update without one
    // Telegram calls us, so it is likely up: replies held back by an outage go now.
    deps.onReachable?.();
    // Throws when the inbox cannot be written: the request fails and Telegram retries it.
    const fresh = inbox.record([{ updateId, payload: ctx.update }], clock.now());
    lastUpdateAt = clock.now();
    if (fresh.length === 0) {
      log.debug({ event: 'tg_update_duplicate', count: 1, updateId }, 'duplicate dropped');
      return;
    }
    // The answer to Telegram does not wait for the turn.
    background(log, 'tg_update_failed', consume(ctx.update, updateId));
  });
  const callback = webhookCallback(bot, limitedHttpAdapter(), { secretToken: webhook.secret });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if ((req.url ?? '').split('?')[0] !== path) {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    callback(req, res).catch((error: unknown) => {
      if (error instanceof WebhookRequestError) return refuse(req, res, error);
      log.error({ event: 'tg_webhook_request_failed', err: error }, 'webhook request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  }

  /** 400 or 413, and one log line. */
  function refuse(req: IncomingMessage, res: ServerResponse, error: WebhookRequestError): void {
    log.warn(
      { event: 'tg_webhook_request_refused', status: error.status, reason: error.message },
      `webhook request refused: ${error.message}`,
    );
    answer(req, res, error.status, error.message);
  }

  /** getMe, then setWebhook, retried until Telegram answers; a final refusal stops. */
  async function register(): Promise<void> {
    const outage = telegramOutageLog(log, clock, deps.onReachable);
    const options = {
      clock,
      signal: stopping.signal,
      outage,
      ...TELEGRAM_BACKOFF,
      isFatal: (error: unknown) =>
        error instanceof GrammyError &&
        error.error_code >= 400 &&
        error.error_code < 500 &&
        error.error_code !== 429,
    };
    bot.botInfo = await retryUntilDone(() => bot.api.getMe(), options);
    await retryUntilDone(
      () =>
        bot.api.setWebhook(webhook.url, {
          secret_token: webhook.secret,
          allowed_updates: ALLOWED_UPDATES,
        }),
      options,
    );
    registered = true;
    log.info(
      {
        event: 'tg_connected',
        username: bot.botInfo.username,
        botId: bot.botInfo.id,
        webhook: true,
      },
      `connected as @${bot.botInfo.username}; updates come to the webhook`,
    );
    deps.onConnected?.();
  }

  return {
    /** Replays stored updates not marked done, listens, then registers the webhook. */
    async start(): Promise<void> {
      await replayStored(deps, consume);
      if (stopping.signal.aborted) return;
      server = createServer(handle);
      await listen(server, webhook.host, webhook.port);
      const { port } = server.address() as AddressInfo;
      log.info(
        { event: 'tg_webhook_listening', host: webhook.host, port, path },
        `webhook listening on ${webhook.host}:${port}${path}`,
      );
      register().catch((error: unknown) => {
        if (stopping.signal.aborted) return;
        log.error(
          // As a ChannelError: Telegram's answer, without a stack (a refusal is expected).
          {
            event: 'tg_webhook_failed',
            hint: webhookHint(error),
            err: toChannelError('setWebhook', error),
          },
          'Telegram refused the webhook',
        );
        deps.onStopped?.(error);
      });
    },

    /** Stops taking updates; requests in flight finish (each is one quick write). */
    async stop(): Promise<void> {
      stopping.abort();
      if (!server?.listening) return;
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
    },

    /** Read-only, for `/healthz`: whether updates can come in, and when one last did. */
    status(): { polling: boolean; lastUpdateAt?: number; mode: 'webhook' } {
      return {
        polling: registered && server?.listening === true && !stopping.signal.aborted,
        ...(lastUpdateAt === undefined ? {} : { lastUpdateAt }),
        mode: 'webhook',
      };
    },
  };
}

export type WebhookIngress = ReturnType<typeof createWebhookIngress>;

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function webhookHint(error: unknown): string | undefined {
  if (!(error instanceof GrammyError)) return undefined;
  if (error.error_code === 401) return 'Telegram rejected the bot token: check TELEGRAM_BOT_TOKEN.';
  return `Telegram refused TELEGRAM_WEBHOOK_URL (${error.description}): it must be a public HTTPS URL on port 443, 80, 88 or 8443.`;
}
