import type { Logger } from '../../core/ports.ts';
import { type ApprovalPolicy, type Effect, envelope, sourceName } from '../../core/trust.ts';
import type { ToolCall } from '../../core/types.ts';
import type { AnyTool } from '../tool.ts';
import {
  type ApprovalAnswer,
  type ApprovalReason,
  type ApprovalRequest,
  type Approver,
  UNTRUSTED_FETCH_LIMIT,
} from './approval.ts';
import { createLoopBreaker } from './loop-breaker.ts';
import { createSeen, type SeenPiece } from './seen.ts';

/** What the model reads when the owner said no, or did not answer in time. */
export const NOT_APPROVED = 'Error: the owner did not approve this call';
/** What a scheduled run's model reads: nobody could be asked. */
export const HELD_BACK = `${NOT_APPROVED} (a scheduled run cannot ask the owner, so it was held back)`;
/**
 * A turn fetches at most this many URLs that only untrusted content named without asking:
 * which of a listed set it fetches, in which order, can spell the owner's data (SPEC §17).
 */
const UNTRUSTED_FETCHES = UNTRUSTED_FETCH_LIMIT;

/** The tool whose results are the owner's own words (their answer to a question). */
const OWNERS_ANSWER = 'ask_user';

/** The "Always allow" answers of one home. */
export interface HomeGrants {
  has(pack: string, tool: string): boolean;
  grant(pack: string, tool: string, at: number): void;
}

export interface TrustDeps {
  /** TOOL_APPROVAL. */
  policy: ApprovalPolicy;
  pack: { name: string; label: string };
  /** Who is asked; undefined in an unattended run (a job), where such calls are held back. */
  approver: Approver | undefined;
  /** The standing approvals of the home the turn uses (SPEC §17: "for that home only"). */
  grants: HomeGrants;
  now(): number;
  log: Logger;
  /**
   * What the session brings (SPEC §17): the sources that tainted it before this turn (a
   * job's own taint among them) and its earlier pieces (read only when a URL needs them).
   */
  session?: { sources: readonly string[]; earlier?: () => SeenPiece[] };
  /** Called with sources as they first taint the session, which keeps them until /new. */
  onTaint?(sources: readonly string[]): void;
}

/** Runs `work` with the turn's deadline stopped (a person is being waited for). */
export type Pause = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * One turn's trust (SPEC §17): what the session has read, whether outside content tainted
 * it, which calls wait for the owner, and the loop breaker. The runner asks `admit` before a
 * call and hands every result to `settle`, which puts an untrusted tool's result in its
 * envelope.
 */
export function createTrustGate(deps: TrustDeps) {
  const { log, pack } = deps;
  const seen = createSeen(deps.session ?? {});
  const breaker = createLoopBreaker(log);
  const held: string[] = [];
  const unattended = deps.approver === undefined;
  let untrustedFetches = 0;

  function tainted(added: readonly string[]): void {
    if (added.length > 0) deps.onTaint?.(added);
  }

  /** Why a call of `tool` must ask, or undefined when it may run as it is. */
  function reasonFor(tool: AnyTool, args: unknown, effect: Effect): ApprovalReason | undefined {
    if (effect !== 'read' && deps.policy === 'always') return 'always';
    if (effect !== 'read' && seen.tainted()) return 'tainted';
    const url = 'fetches' in tool && tool.fetches ? tool.fetches(args as never) : undefined;
    // An unattended run applies the URL rule from its first call: a job's prompt is the
    // owner's words, and what it read may not steer it elsewhere.
    if (url === undefined || !(seen.tainted() || unattended)) return undefined;
    const origin = seen.origin(url);
    if (origin === undefined) return 'unseen-url';
    if (origin === 'untrusted' && untrustedFetches >= UNTRUSTED_FETCHES) return 'fetch-limit';
    if (origin === 'untrusted') untrustedFetches += 1;
    return undefined;
  }

  /** The request to put to the owner, or undefined when the call may run as it is. */
  function approvalNeeded(tool: AnyTool, args: unknown): ApprovalRequest | undefined {
    if (deps.policy === 'off') return undefined;
    const effect = effectOf(tool, args);
    const reason = reasonFor(tool, args, effect);
    if (reason === undefined || deps.grants.has(pack.name, tool.name)) return undefined;
    return request(tool.name, effect, args, reason);
  }

  function request(
    tool: string,
    effect: Effect,
    args: unknown,
    reason: ApprovalReason,
  ): ApprovalRequest {
    return {
      tool,
      pack: pack.name,
      packLabel: pack.label,
      effect,
      args,
      reason,
      sources: [...seen.sources()],
    };
  }

  /** Asks the owner, or holds the call back when nobody can be asked; the refusal, if any. */
  async function ask(
    request: ApprovalRequest,
    signal: AbortSignal,
    pause: Pause,
  ): Promise<string | undefined> {
    const fields = { tool: request.tool, pack: pack.name, effect: request.effect };
    const approver = deps.approver;
    if (!approver) {
      held.push(`${request.tool} (${HELD[request.reason] ?? request.effect})`);
      log.info({ event: 'approval_denied', ...fields, reason: 'unattended' }, 'held back');
      breaker.refusedApproval(request.tool);
      return HELD_BACK;
    }
    log.info(
      { event: 'approval_requested', ...fields, why: request.reason, sources: request.sources },
      'asking the owner to approve a call',
    );
    return answered(request, await pause(() => approver.ask(request, signal)));
  }

  /** Logs and books the owner's answer; returns the refusal the model reads, if any. */
  function answered(request: ApprovalRequest, answer: ApprovalAnswer): string | undefined {
    const fields = { tool: request.tool, pack: pack.name };
    if (answer === 'once' || answer === 'always') {
      if (answer === 'always') deps.grants.grant(pack.name, request.tool, deps.now());
      log.info(
        { event: 'approval_granted', ...fields, scope: answer },
        'the owner approved a call',
      );
      return undefined;
    }
    const reason = answer === 'timeout' ? 'timeout' : 'denied';
    log.info({ event: 'approval_denied', ...fields, reason }, 'the owner did not approve a call');
    breaker.refusedApproval(request.tool);
    return NOT_APPROVED;
  }

  return {
    /**
     * Takes the owner's input (a message, a steered one): its envelopes taint the session, and
     * `taint` names outside content the model sees without one (a photo given inline).
     */
    observe(text: string, taint?: string): void {
      const added = seen.add({ from: 'owner', text });
      if (taint !== undefined && seen.taint(taint)) added.push(taint);
      tainted(added);
    },

    /**
     * Whether a call may run: undefined when it may, else the `Error:` result the model
     * reads. A call that needs approval waits for the owner (with the deadline paused).
     */
    async admit(
      call: ToolCall,
      tool: AnyTool,
      args: unknown,
      signal: AbortSignal,
      pause: Pause,
    ): Promise<string | undefined> {
      const repeated = breaker.refusal(call);
      if (repeated) return repeated;
      const needed = approvalNeeded(tool, args);
      return needed && (await ask(needed, signal, pause));
    },

    /**
     * Whether the memory flush before a compaction may add `text` to MEMORY.md: in a tainted
     * session it is a `memory` write that asks (nobody to ask: it is skipped).
     */
    async mayKeep(text: string, signal: AbortSignal, pause: Pause): Promise<boolean> {
      if (deps.policy === 'off' || (!seen.tainted() && deps.policy !== 'always')) return true;
      if (deps.grants.has(pack.name, 'memory')) return true;
      const args = { action: 'append', file: 'MEMORY.md', content: text };
      const refused = await ask(request('memory', 'write', args, 'flush'), signal, pause);
      return refused === undefined;
    },

    /**
     * A call's result as the model reads it: an untrusted tool's in its envelope (which
     * taints the session). Every result counts for the loop breaker; the owner's answers
     * and untrusted content for the URLs seen.
     */
    settle(call: ToolCall, tool: AnyTool | undefined, args: unknown, result: string): string {
      const source = tool?.untrusted ? sourceName(tool.untrusted(args as never)) : undefined;
      let shown = result;
      // A core tool's error is satchel's own wording; an MCP tool's may be the server's.
      if (source !== undefined && !result.startsWith('Error:')) shown = envelope(source, result);
      else if (source !== undefined && 'parameters' in (tool as AnyTool))
        shown = `Error: ${envelope(source, result.replace(/^Error:\s*/, ''))}`;
      const from = tool?.name === OWNERS_ANSWER ? 'owner' : 'result';
      tainted(seen.add({ from, text: shown }));
      breaker.count(call, shown, tool !== undefined && effectOf(tool, args) !== 'read');
      return shown;
    },

    /** Whether the session has read untrusted content (a job made now remembers it). */
    tainted: () => seen.tainted(),
    /** The untrusted sources that tainted the session, first ones first. */
    sources: () => seen.sources(),
    /** The loop breaker took the tools away: the next request carries none. */
    stopped: () => breaker.stopped(),
    /** In an unattended run, the calls held back for want of an owner to ask. */
    heldBack: (): readonly string[] => held,
  };
}

export type TrustGate = ReturnType<typeof createTrustGate>;

/** How a held-back call is named in a scheduled run's message, by why it needed approval. */
const HELD: Partial<Record<ApprovalReason, string>> = {
  'unseen-url': 'a URL its prompt and what it read never named',
  'fetch-limit': `more than ${UNTRUSTED_FETCHES} URLs only outside content named`,
  flush: 'notes for MEMORY.md',
};

/** A call's effect; a tool that declares none is taken to reach outside. */
export function effectOf(tool: AnyTool, args: unknown): Effect {
  const { effect } = tool;
  if (effect === undefined) return 'external';
  return typeof effect === 'function' ? effect(args as never) : effect;
}
