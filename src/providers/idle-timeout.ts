import { ProviderError } from '../core/errors.ts';

/**
 * An abort signal that fires when a call makes no progress for `ms`: nothing before the
 * first byte, or a stream that stops sending. `touch` marks progress. A long answer that
 * keeps streaming is never cut off; a stalled one is.
 */
export function idleTimeout(ms: number, parent: AbortSignal) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      expired = true;
      controller.abort(new Error(`no progress for ${ms} ms`));
    }, ms);
  };
  const onParentAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  if (parent.aborted) onParentAbort();
  arm();
  return {
    signal: controller.signal,
    touch: arm,
    /** The error to throw when the timeout, not the caller, ended the call. */
    timeoutError(provider: string): ProviderError | undefined {
      if (!expired || parent.aborted) return undefined;
      return new ProviderError(provider, `${provider} made no progress for ${ms} ms`, {
        transient: true,
      });
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
