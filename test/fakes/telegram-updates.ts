/**
 * The fake Telegram server's update queue: update ids, long polls (getUpdates with a timeout is
 * held open until an update arrives), the offset that confirms updates, and the hand-over to
 * the webhook when one is set.
 */
import type { ServerResponse } from 'node:http';
import type { Waits } from './telegram-waits.ts';
import type { Webhook } from './telegram-webhook.ts';
import { fail, type Json, ok, type Params, preciseNow, send } from './telegram-wire.ts';
import { WAIT_BUDGET_MS } from './wait-budget.ts';

interface Poll {
  offset: number;
  limit: number;
  finish(updates: Json[]): void;
}

const WEBHOOK_CONFLICT =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete " +
  'the webhook first';

export class UpdateQueue {
  private queue: Json[] = [];
  private readonly polls = new Set<Poll>();
  private nextUpdateId = 1;
  private confirmed = 0;
  /** When a getUpdates answer first carried each update (`preciseNow`), by update_id. */
  private readonly served = new Map<number, number>();

  constructor(
    private readonly waits: Waits,
    private readonly webhook: Webhook,
    private readonly stopping: AbortSignal,
  ) {}

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
    if (this.webhook.active) {
      this.webhook.deliver({ update_id, ...update });
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

  /** Updates not yet confirmed by an offset (getWebhookInfo's `pending_update_count`). */
  pending(): number {
    return this.queue.length;
  }

  /** Highest `offset` a getUpdates call has sent: every update below it is confirmed. */
  confirmedOffset(): number {
    return this.confirmed;
  }

  async waitForOffset(offset: number, timeoutMs = WAIT_BUDGET_MS): Promise<void> {
    await this.waits.until(
      () => (this.confirmed >= offset ? true : undefined),
      timeoutMs,
      () =>
        `waitForOffset: offset ${offset} not confirmed within ${timeoutMs}ms (confirmed: ${this.confirmed})`,
    );
  }

  /** When a getUpdates answer first carried `updateId` (`preciseNow`); undefined: not yet. */
  servedAt(updateId: number): number | undefined {
    return this.served.get(updateId);
  }

  /** Number of getUpdates requests currently held open. */
  pendingPolls(): number {
    return this.polls.size;
  }

  /** Answers every held long poll with `[]` (the fake is stopping). */
  endPolls(): void {
    for (const poll of [...this.polls]) poll.finish([]);
  }

  getUpdates(params: Params, res: ServerResponse): void {
    if (this.webhook.active) {
      send(res, fail(409, WEBHOOK_CONFLICT));
      return;
    }
    const offset = Number(params.offset ?? 0);
    const limit = Math.min(Math.max(Number(params.limit ?? 100), 1), 100);
    const timeout = Number(params.timeout ?? 0);
    if (offset > 0) {
      this.queue = this.queue.filter((u) => u.update_id >= offset);
      if (offset > this.confirmed) {
        this.confirmed = offset;
        this.waits.notify();
      }
    }
    const ready = this.queue.filter((u) => u.update_id >= offset).slice(0, limit);
    if (ready.length > 0 || timeout <= 0 || this.stopping.aborted) {
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
}
