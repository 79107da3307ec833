/**
 * The fake Telegram server's webhook: after `setWebhook`, updates are POSTed to its URL one at a
 * time, with its `secret_token` in X-Telegram-Bot-Api-Secret-Token, and retried while the answer
 * is not 2xx (as Telegram does); `deleteWebhook` goes back to polling.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Waits } from './telegram-waits.ts';
import { fail, type Json, ok, type Params, type Reply } from './telegram-wire.ts';

export class Webhook {
  private current: { url: string; secret: string | undefined } | undefined;
  private readonly delivered: { updateId: number; status: number }[] = [];
  private delivering: Promise<void> = Promise.resolve();

  constructor(
    private readonly waits: Waits,
    private readonly stopping: AbortSignal,
  ) {}

  /** Whether updates go to a webhook (and getUpdates is refused). */
  get active(): boolean {
    return this.current !== undefined;
  }

  setWebhook(p: Params): Reply {
    if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url))
      return fail(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    this.current = { url: p.url, secret: p.secret_token };
    return ok(true);
  }

  deleteWebhook(): Reply {
    this.current = undefined;
    return ok(true);
  }

  getWebhookInfo(pendingUpdates: number): Reply {
    return ok({
      url: this.current?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: pendingUpdates,
    });
  }

  /** Answers to webhook deliveries, in order (retries included). */
  deliveries(): { updateId: number; status: number }[] {
    return [...this.delivered];
  }

  /** The webhook set with setWebhook, if any. */
  webhookInfo(): { url: string; secret: string | undefined } | undefined {
    return this.current && { ...this.current };
  }

  /**
   * POSTs `body` to the webhook as Telegram would, with `secret` (default: the one set) in
   * the secret header (`null` sends none). Returns the status and body of the answer.
   */
  async postToWebhook(
    body: object,
    secret: string | null = this.current?.secret ?? null,
  ): Promise<{ status: number; body: string }> {
    if (!this.current) throw new Error('FakeTelegram: no webhook is set');
    const response = await fetch(this.current.url, {
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
  deliver(update: Json): void {
    this.delivering = this.delivering.then(async () => {
      for (let attempt = 1; attempt <= 20 && !this.stopping.aborted; attempt++) {
        const status = await this.postToWebhook(update).then(
          (r) => r.status,
          () => 0,
        );
        this.delivered.push({ updateId: update.update_id, status });
        this.waits.notify();
        if (status >= 200 && status < 300) return;
        await sleep(50 * attempt, undefined, { signal: this.stopping }).catch(() => {});
      }
    });
  }
}
