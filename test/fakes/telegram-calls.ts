/** The fake Telegram server's record of the Bot API calls it received, for assertions. */
import type { Waits } from './telegram-waits.ts';
import { type Json, type Params, safely } from './telegram-wire.ts';
import { WAIT_BUDGET_MS } from './wait-budget.ts';

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

/** The methods that post a message, and that `sent` and `texts` report. */
export const SEND_METHODS = new Set([
  'sendMessage',
  'sendPhoto',
  'sendVoice',
  'sendAudio',
  'sendDocument',
]);

export class CallLog {
  private readonly log: ApiCall[] = [];

  constructor(private readonly waits: Waits) {}

  record(call: ApiCall): void {
    this.log.push(call);
    this.waits.notify();
  }

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
    timeoutMs = WAIT_BUDGET_MS,
  ): Promise<ApiCall> {
    return this.waitForCalls(method, 1, predicate, timeoutMs).then((calls) => calls[0]!);
  }

  waitForCalls(
    method: string,
    count: number,
    predicate?: (c: ApiCall) => boolean,
    timeoutMs = WAIT_BUDGET_MS,
  ): Promise<ApiCall[]> {
    const matching = () => this.calls(method).filter((c) => safely(() => predicate?.(c) ?? true));
    return this.waits.until(
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

  /** One line of every recorded call, for a failed wait's message. */
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
