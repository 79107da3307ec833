import { ProviderError } from '../core/errors.ts';

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
