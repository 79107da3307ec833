import { backoffMs } from './backoff.ts';
import type { McpConnection } from './connection.ts';
import type { Deadline } from './deadline.ts';
import type { McpTool } from './types.ts';

export type Availability =
  | { ok: true; connection: McpConnection; tools: McpTool[] }
  | { ok: false; reason: string; logged: boolean };

/** A start or a re-list under way: its bound (to abort it) and the answer its callers share. */
interface InFlight {
  deadline: Deadline;
  attempt: Promise<Availability>;
}

/**
 * Where one server's runner is. `stale`: the server announced a changed tool list, so the
 * next use reads it again. `reason` is read late: an exit's last stderr line may come after
 * the exit.
 */
export type Phase =
  | { tag: 'idle' }
  | ({ tag: 'starting'; connection: McpConnection; stale: boolean } & InFlight)
  | { tag: 'ready'; connection: McpConnection; tools: McpTool[]; stale: boolean }
  | ({ tag: 'relisting'; connection: McpConnection; tools: McpTool[]; stale: boolean } & InFlight)
  | { tag: 'backing-off'; until: number; reason: () => string }
  | { tag: 'closed' };

export interface RunnerState {
  phase: Phase;
  /** Failures in a row (failed starts, exits, floods); a call that goes through clears them. */
  strikes: number;
}

/** A failure of `connection` at `now`, and why. */
export interface Failure {
  connection: McpConnection;
  now: number;
  reason: () => string;
}

export const initialState = (): RunnerState => ({ phase: { tag: 'idle' }, strikes: 0 });

/** The connection `phase` runs or is starting, if any. */
export function connectionOf(phase: Phase): McpConnection | undefined {
  return 'connection' in phase ? phase.connection : undefined;
}

/** How long until the next start may begin (0 when it may begin now). */
export const retryIn = (state: RunnerState, now: number): number =>
  state.phase.tag === 'backing-off' ? Math.max(0, state.phase.until - now) : 0;

/** Whether `phase` is `tag`, with `connection`. */
export const holds = (phase: Phase, tag: Phase['tag'], connection: McpConnection) =>
  phase.tag === tag && connectionOf(phase) === connection;

/** Whether `phase` is `connection` up and running (listing again counts). */
const runs = (phase: Phase, connection: McpConnection) =>
  holds(phase, 'ready', connection) || holds(phase, 'relisting', connection);

/** A start of `connection` begins (from idle, a backoff past its time, or a dead ready). */
export function begin(
  state: RunnerState,
  start: { connection: McpConnection } & InFlight,
): RunnerState {
  if (state.phase.tag === 'closed') return state;
  return { ...state, phase: { tag: 'starting', stale: false, ...start } };
}

/** starting → ready with `tools`. A start the phase moved on from (closed, flooded) changes nothing. */
export function started(
  state: RunnerState,
  done: { connection: McpConnection; tools: McpTool[] },
): RunnerState {
  const { phase } = state;
  if (phase.tag !== 'starting' || phase.connection !== done.connection) return state;
  return { ...state, phase: { tag: 'ready', ...done, stale: phase.stale } };
}

/**
 * starting → backing-off. `connection` undefined: the connection could not even be made (a
 * URL that does not parse), which fails the start that was about to begin.
 */
export function startFailed(
  state: RunnerState,
  failure: Omit<Failure, 'connection'> & { connection: McpConnection | undefined },
): RunnerState {
  const { phase } = state;
  if (failure.connection === undefined) return backOff(state, failure, 0);
  if (phase.tag !== 'starting' || phase.connection !== failure.connection) return state;
  return backOff(state, failure, 0);
}

/**
 * ready or relisting → backing-off: the running server exited or its connection failed
 * under a call. A first one after a good start costs no wait (a grace strike).
 */
export function lost(state: RunnerState, failure: Failure): RunnerState {
  if (!runs(state.phase, failure.connection)) return state;
  return backOff(state, failure, 1);
}

/** starting, ready or relisting → backing-off: the server flooded satchel and is stopped. */
export function flooded(state: RunnerState, failure: Failure): RunnerState {
  if (connectionOf(state.phase) !== failure.connection) return state;
  return backOff(state, failure, 0);
}

/** The server announced a changed tool list: the next use reads it again. */
export function toolsChanged(state: RunnerState, connection: McpConnection): RunnerState {
  const { phase } = state;
  if (!('stale' in phase) || phase.connection !== connection) return state;
  return { ...state, phase: { ...phase, stale: true } };
}

/** ready → relisting: the tool list is read again. A change announced meanwhile waits. */
export function relistBegun(state: RunnerState, relist: InFlight): RunnerState {
  const { phase } = state;
  if (phase.tag !== 'ready') return state;
  return { ...state, phase: { ...phase, tag: 'relisting', stale: false, ...relist } };
}

/**
 * relisting → ready, with the new list (`tools`) or, when the listing failed, the old one.
 * A re-list the phase moved on from (an exit, a close) changes nothing.
 */
export function relisted(
  state: RunnerState,
  done: { connection: McpConnection; tools?: McpTool[] },
): RunnerState {
  const { phase } = state;
  if (phase.tag !== 'relisting' || phase.connection !== done.connection) return state;
  const { connection, tools, stale } = phase;
  return { ...state, phase: { tag: 'ready', connection, tools: done.tools ?? tools, stale } };
}

/** A call went through: the server is healthy again, a later crash restarts at once. */
export const healthy = (state: RunnerState): RunnerState => ({ ...state, strikes: 0 });

/** Any phase → closed, for good. */
export const closed = (state: RunnerState): RunnerState => ({ ...state, phase: { tag: 'closed' } });

/** One more strike, and a wait from `now` before the next start (`backoffMs`). */
function backOff(
  state: RunnerState,
  failure: Pick<Failure, 'now' | 'reason'>,
  graceStrikes: number,
): RunnerState {
  if (state.phase.tag === 'closed') return state;
  const strikes = state.strikes + 1;
  const until = failure.now + backoffMs(strikes, graceStrikes);
  return { strikes, phase: { tag: 'backing-off', until, reason: failure.reason } };
}
