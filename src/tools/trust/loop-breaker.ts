import type { Logger } from '../../core/ports.ts';
import type { ToolCall } from '../../core/types.ts';

/** An identical call that failed this many times in a turn is not run again. */
export const SAME_CALL_FAILURES = 2;
/** After this many refused or failed calls in a row, the turn's next request has no tools. */
export const FAILURES_IN_A_ROW = 5;
/** After this many denied, unanswered or held-back approvals in a turn, it has no tools. */
export const REFUSED_APPROVALS = 3;

export const REPEATED_FAILURE =
  'Error: this exact call already failed twice in this turn, so it was not run again. Change the arguments, try another way, or answer the user.';

/**
 * Stops a turn that keeps failing (SPEC §17): an identical call (same tool, same arguments)
 * that failed twice is refused, and five refused or failed calls in a row, or three
 * approvals the owner did not give in the turn (whatever succeeded between them), take the
 * tools away for the rest of the turn, so the model must answer.
 */
export function createLoopBreaker(log: Logger) {
  const failures = new Map<string, number>();
  let inARow = 0;
  let refusedApprovals = 0;
  let stopped = false;
  const keyOf = (call: ToolCall) => `${call.name}\u0000${call.arguments.trim()}`;

  function stop(fields: Record<string, unknown>): void {
    if (stopped) return;
    stopped = true;
    log.warn(
      { event: 'tool_loop_stopped', ...fields },
      'tool calls kept failing; the model must answer without tools',
    );
  }

  return {
    /** The refusal for a call that already failed twice; undefined when it may run. */
    refusal(call: ToolCall): string | undefined {
      return (failures.get(keyOf(call)) ?? 0) >= SAME_CALL_FAILURES ? REPEATED_FAILURE : undefined;
    },
    /**
     * Counts a call's result (an `Error:` result is a refusal or a failure). A call that
     * changed something (`changed`: a write that worked) may have made a failed call
     * possible, so the failures counted so far are forgotten.
     */
    count(call: ToolCall, result: string, changed: boolean): void {
      if (!result.startsWith('Error:')) {
        inARow = 0;
        if (changed) failures.clear();
        return;
      }
      const key = keyOf(call);
      failures.set(key, (failures.get(key) ?? 0) + 1);
      inARow += 1;
      if (inARow >= FAILURES_IN_A_ROW) stop({ tool: call.name, failures: inARow });
    },
    /** Counts an approval the owner denied, left unanswered, or nobody could give. */
    refusedApproval(tool: string): void {
      refusedApprovals += 1;
      if (refusedApprovals >= REFUSED_APPROVALS) stop({ tool, refusedApprovals });
    },
    stopped: () => stopped,
  };
}
