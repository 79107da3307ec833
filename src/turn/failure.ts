import {
  AbortedError,
  GENERIC_FAILURE,
  SatchelError,
  STOPPED,
  StopRequested,
} from '../core/errors.ts';

/**
 * The failure policy: what the user hears when a turn ends in an error. /stop is answered
 * "Stopped."; a shutdown says nothing and leaves the event pending (it runs again on the
 * next start); our own errors carry a message safe to show; anything else is the generic
 * apology. The cause is only ever logged.
 */
export type FailureOutcome =
  | { kind: 'stopped'; reply: string }
  | { kind: 'shutdown' }
  | { kind: 'failed'; reply: string };

export function failureOutcome(error: unknown, signal: AbortSignal): FailureOutcome {
  if (signal.aborted && signal.reason instanceof StopRequested)
    return { kind: 'stopped', reply: STOPPED };
  if (signal.aborted && signal.reason instanceof AbortedError) return { kind: 'shutdown' };
  return {
    kind: 'failed',
    reply: error instanceof SatchelError ? error.userMessage : GENERIC_FAILURE,
  };
}
