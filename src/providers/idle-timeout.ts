import { type ProviderError, ProviderTimeoutError } from '../core/errors.ts';

/**
 * An abort signal that fires when a call makes no progress for `ms`: nothing before the
 * first byte, or a stream that stops sending. `touch` marks progress. A long answer that
 * keeps streaming is never cut off; a stalled one is.
 */
export function idleTimeout(ms: number, parent: AbortSignal) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no progress for ${ms} ms`));
  }, ms);
  const onParentAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  if (parent.aborted) onParentAbort();
  return {
    signal: controller.signal,
    /** Progress: the wait starts again (the same timer, moved on; called on every chunk). */
    touch: () => void timer.refresh(),
    /** The error to throw when the timeout, not the caller, ended the call. */
    timeoutError(provider: string): ProviderError | undefined {
      if (!expired || parent.aborted) return undefined;
      return new ProviderTimeoutError(provider, `${provider} made no progress for ${ms} ms`);
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Runs one streamed model call under an idle timeout. `call` gets the signal to pass to the
 * SDK and a `progress` function to call on every chunk. A stream that ended because it was
 * aborted is never taken as an answer; failures go through `mapError`, except a timeout,
 * which is a transient ProviderError.
 */
export async function withIdleTimeout<T>(
  options: { provider: string; timeoutMs: number; signal: AbortSignal },
  call: (signal: AbortSignal, progress: () => void) => Promise<T>,
  mapError: (error: unknown) => unknown,
): Promise<T> {
  const deadline = idleTimeout(options.timeoutMs, options.signal);
  try {
    const result = await call(deadline.signal, deadline.touch);
    // An aborted SDK stream may simply end instead of throwing.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    return result;
  } catch (error) {
    throw deadline.timeoutError(options.provider) ?? mapError(error);
  } finally {
    deadline.dispose();
  }
}
