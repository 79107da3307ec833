import { ProviderError, STOPPED, StopRequested } from '../core/errors.ts';

/** What ends an answer whose stream broke after part of it had reached the user. */
export const CUT_NOTE =
  '(My answer was cut off here: the connection to the model broke. Ask again for the rest.)';

/**
 * The answer of a turn whose model call failed after its text had begun to reach the user:
 * that text, marked as cut. The user has already seen it, so an apology in its place would
 * take it back. Undefined when nothing was streamed, or when the failure is not a transient
 * provider error (a refused key; /stop and a shutdown are aborts): those stay errors.
 */
export function cutAnswer(error: unknown, partial: string): string | undefined {
  if (!(error instanceof ProviderError) || !error.transient) return undefined;
  const text = partial.trim();
  return text ? `${text}\n\n${CUT_NOTE}` : undefined;
}

/**
 * The answer of a turn the owner stopped while its text streamed (SPEC §2 step 8: text
 * already delivered stays; §16: it keeps its text, marked as stopped): that text with the
 * stop marked under it, stored and sent as the answer. Undefined when the stop came before
 * any text of the current model call (or during a tool): the turn then ends "Stopped.".
 */
export function stoppedAnswer(
  signal: AbortSignal,
  partial: string | undefined,
): string | undefined {
  if (!signal.aborted || !(signal.reason instanceof StopRequested)) return undefined;
  const text = partial?.trim();
  return text ? `${text}\n\n_${STOPPED}_` : undefined;
}
