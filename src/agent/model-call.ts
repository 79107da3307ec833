import { type Clock, sleep } from '../core/clock.ts';
import { AbortedError, ProviderError, ProviderTimeoutError } from '../core/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse, Logger } from '../core/ports.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { PackCaps, QuotaGate } from '../usage/quota.ts';
import { TurnDeadlineError } from './deadline.ts';
import { estimateTokens } from './history.ts';
import type { RetryPolicy } from './retry.ts';

/** Who a model call is for: the ledger row's scope and the quota gate's caps. */
export interface CallScope {
  pack: string;
  chatId: string;
  threadId: string | undefined;
  sessionId: string;
  turnId: string;
  /** The job whose run made the call, if any. */
  jobId?: string | undefined;
  packCaps?: PackCaps | undefined;
  ignoreSessionCap?: boolean | undefined;
  /** Who the call is for (booked), whose caps apply, and the edge's platform (SPEC §19, §7). */
  person?: string | null | undefined;
  capPerson?: string | null | undefined;
  channel?: string | undefined;
}

export interface ModelCall {
  scope: CallScope;
  request: ChatRequest;
  signal: AbortSignal;
  /** Text deltas as they stream; without it the call's text is not shown while it runs. */
  onText?: ((delta: string) => void) | undefined;
  /** The streamed text so far is void (the fallback model starts over). */
  onRestart?: (() => void) | undefined;
  /** The primary for this call when not the default (a pack's `model`). */
  model?: ChatModel | undefined;
}

export interface ModelCallerDeps {
  model: ChatModel;
  fallback?: ChatModel | undefined;
  ledger: Ledger;
  quota: QuotaGate;
  clock: Clock;
  log: Logger;
  retry: RetryPolicy;
}

/**
 * One logical model call: the quota gate before every paid attempt and a ledger row after
 * each (also when it fails). A transient failure other than a timeout is retried on the
 * primary with backoff, but only while nothing of the answer has been streamed; then the
 * fallback (LLM_FALLBACK) gets one try. Backoff waits run on the injected clock and end
 * when `signal` aborts.
 */
export function createModelCaller(deps: ModelCallerDeps) {
  const { clock, log } = deps;

  /** One paid call to one model, with its ledger row. `streamed` flips on the first text. */
  async function attempt(model: ChatModel, call: ModelCall, streamed: { value: boolean }) {
    const started = clock.now();
    const { scope } = call;
    const entry = {
      kind: 'llm' as const,
      provider: model.info.provider,
      model: model.info.model,
      scope: {
        pack: scope.pack,
        chatId: scope.chatId,
        threadId: scope.threadId ?? null,
        sessionId: scope.sessionId,
        turnId: scope.turnId,
        jobId: scope.jobId ?? null,
        person: scope.person ?? null,
        channel: scope.channel ?? null,
      },
    };
    const { onText } = call;
    // Characters of the answer received so far: what a call that ends early still cost.
    let received = 0;
    try {
      const response = await model.complete(call.request, {
        signal: call.signal,
        onText: (delta: string) => {
          received += delta.length;
          if (!onText) return;
          if (delta) streamed.value = true;
          onText(delta);
        },
      });
      // Booked at the end of the task: the answer goes on to its reply first (ledger.ts).
      deps.ledger.recordSoon({
        ...entry,
        ...response.usage,
        latencyMs: clock.now() - started,
        ok: true,
      });
      return response;
    } catch (error) {
      const latencyMs = clock.now() - started;
      deps.ledger.record({
        ...entry,
        ...partialUsage(call.request, received),
        latencyMs,
        ok: false,
        error: failureLabel(error, call),
      });
      throw error;
    }
  }

  /** The primary model, retried while the policy allows and nothing has been streamed. */
  async function primary(call: ModelCall): Promise<ChatResponse> {
    for (let retry = 0; ; retry++) {
      checkQuota(call.scope, call.model ?? deps.model);
      const streamed = { value: false };
      try {
        return await attempt(call.model ?? deps.model, call, streamed);
      } catch (error) {
        const wait = streamed.value ? undefined : retryWait(error, retry);
        if (wait === undefined) throw error;
        // Expected and handled: one line at warn; the error's details only at debug.
        logProviderError(error, 'debug');
        log.warn(
          {
            event: 'provider_retry',
            provider: (call.model ?? deps.model).info.provider,
            status: (error as ProviderError).status,
            retry: retry + 1,
            waitMs: wait,
            reason: (error as ProviderError).message,
          },
          'retrying the model call',
        );
        await sleep(clock, wait, call.signal);
      }
    }
  }

  /** A fast transient failure is worth another try; a timeout already cost its full wait. */
  function retryWait(error: unknown, retry: number): number | undefined {
    if (!(error instanceof ProviderError) || !error.transient) return undefined;
    if (error instanceof ProviderTimeoutError) return undefined;
    if (retry >= deps.retry.retries) return undefined;
    return deps.retry.delayMs(retry, error.retryAfterMs);
  }

  function checkQuota(scope: CallScope, model: ChatModel): void {
    deps.quota.check(
      {
        pack: scope.pack,
        sessionId: scope.sessionId,
        packCaps: scope.packCaps,
        ignoreSessionCap: scope.ignoreSessionCap,
        capPerson: scope.capPerson,
      },
      { kind: 'llm', provider: model.info.provider, model: model.info.model },
    );
  }

  /** `provider_error` for a failed call: at warn when it ends the turn's try of a model. */
  function logProviderError(error: unknown, level: 'warn' | 'debug'): void {
    if (!(error instanceof ProviderError)) return;
    log[level](
      { event: 'provider_error', provider: error.provider, status: error.status, err: error },
      'model call failed',
    );
  }

  return async function callModel(call: ModelCall): Promise<ChatResponse> {
    try {
      return await primary(call);
    } catch (error) {
      const { fallback } = deps;
      const failover = fallback && error instanceof ProviderError && error.transient;
      // The failover line says it; without one, this is the line that does.
      logProviderError(error, failover ? 'debug' : 'warn');
      if (!failover) throw error;
      log.warn(
        {
          event: 'provider_failover',
          from: `${(call.model ?? deps.model).info.provider}:${(call.model ?? deps.model).info.model}`,
          to: `${fallback.info.provider}:${fallback.info.model}`,
          status: error.status,
          reason: error.message,
        },
        'primary model failed; using the fallback',
      );
      call.onRestart?.();
      checkQuota(call.scope, fallback);
      try {
        return await attempt(fallback, call, { value: false });
      } catch (fallbackError) {
        logProviderError(fallbackError, 'warn');
        throw fallbackError;
      }
    }
  };
}

export type CallModel = ReturnType<typeof createModelCaller>;

/**
 * The usage of a call that ended before the provider reported it (a stopped or broken
 * stream): none when nothing came back; else estimated from the prompt and the text
 * received, about as the provider bills it, so the call counts with its tokens.
 */
function partialUsage(request: ChatRequest, received: number) {
  if (received === 0) return {};
  const prompt = [{ role: 'system' as const, content: request.system }, ...request.messages];
  return { inputTokens: estimateTokens(prompt), outputTokens: Math.ceil(received / 4) };
}

/** The ledger's error text: why the call ended ('deadline', 'aborted' or the failure). */
function failureLabel(error: unknown, call: ModelCall): string {
  if (call.signal.aborted && call.signal.reason instanceof TurnDeadlineError) return 'deadline';
  if (error instanceof AbortedError) return 'aborted';
  return String((error as Error).message);
}
