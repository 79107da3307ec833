import type { Logger } from '../../core/ports.ts';
import { type ApprovalPolicy, type Effect, envelope, sourceName } from '../../core/trust.ts';
import type { ToolCall } from '../../core/types.ts';
import type { GrantRepo } from '../../store/grant-repo.ts';
import type { AnyTool } from '../tool.ts';
import type { ApprovalAnswer, ApprovalRequest, Approver } from './approval.ts';
import { createLoopBreaker } from './loop-breaker.ts';
import { createSeen } from './seen.ts';

/** What the model reads when the owner said no, or did not answer in time. */
export const NOT_APPROVED = 'Error: the owner did not approve this call';
/** What a scheduled run's model reads: nobody could be asked. */
export const HELD_BACK = `${NOT_APPROVED} (a scheduled run cannot ask the owner, so it was held back)`;

export interface TrustDeps {
  /** TOOL_APPROVAL. */
  policy: ApprovalPolicy;
  pack: { name: string; label: string };
  /** Who is asked; undefined in an unattended run (a job), where such calls are held back. */
  approver: Approver | undefined;
  grants: Pick<GrantRepo, 'has' | 'grant'>;
  now(): number;
  log: Logger;
}

/** Runs `work` with the turn's deadline stopped (a person is being waited for). */
export type Pause = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * One turn's trust (SPEC §17): what it has read, whether outside content tainted it, which
 * calls wait for the owner, and the loop breaker. The runner asks `admit` before a call and
 * hands every result to `settle`, which puts an untrusted tool's result in its envelope.
 */
export function createTrustGate(deps: TrustDeps) {
  const { log, pack } = deps;
  const seen = createSeen();
  const breaker = createLoopBreaker(log);
  const held: string[] = [];

  /** The request to put to the owner, or undefined when the call may run as it is. */
  function approvalNeeded(tool: AnyTool, args: unknown): ApprovalRequest | undefined {
    if (deps.policy === 'off') return undefined;
    const effect = effectOf(tool, args);
    const tainted = seen.tainted();
    const url = 'fetches' in tool && tool.fetches ? tool.fetches(args as never) : undefined;
    const unseenUrl = tainted && url !== undefined && !seen.has(url);
    const acting = effect !== 'read' && (deps.policy === 'always' || tainted);
    if (!acting && !unseenUrl) return undefined;
    if (deps.grants.has(pack.name, tool.name)) return undefined;
    return {
      tool: tool.name,
      pack: pack.name,
      packLabel: pack.label,
      effect,
      args,
      sources: seen.sources(),
      unseenUrl: unseenUrl && !acting,
    };
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
    return NOT_APPROVED;
  }

  return {
    /** Takes the turn's input (or anything else it saw): its envelopes and `taint` taint the turn. */
    observe: (text: string, taint?: string) => {
      seen.add(text);
      if (taint !== undefined) seen.taint(taint);
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
      const request = approvalNeeded(tool, args);
      if (!request) return undefined;
      const fields = { tool: request.tool, pack: pack.name, effect: request.effect };
      if (!deps.approver) {
        held.push(`${request.tool} (${request.unseenUrl ? 'an unseen URL' : request.effect})`);
        log.info({ event: 'approval_denied', ...fields, reason: 'unattended' }, 'held back');
        return HELD_BACK;
      }
      log.info(
        { event: 'approval_requested', ...fields, sources: request.sources },
        'asking the owner to approve a call',
      );
      const approver = deps.approver;
      return answered(request, await pause(() => approver.ask(request, signal)));
    },

    /**
     * A call's result as the model reads it: an untrusted tool's in its envelope (which
     * taints the turn). Every result counts for the loop breaker and the URLs seen.
     */
    settle(call: ToolCall, tool: AnyTool | undefined, args: unknown, result: string): string {
      const source = tool?.untrusted ? sourceName(tool.untrusted(args as never)) : undefined;
      let shown = result;
      // A core tool's error is satchel's own wording; an MCP tool's may be the server's.
      if (source !== undefined && !result.startsWith('Error:')) shown = envelope(source, result);
      else if (source !== undefined && 'parameters' in (tool as AnyTool))
        shown = `Error: ${envelope(source, result.replace(/^Error:\s*/, ''))}`;
      if (source !== undefined && shown !== result) seen.taint(source);
      seen.add(shown);
      breaker.count(call, shown, tool !== undefined && effectOf(tool, args) !== 'read');
      return shown;
    },

    /** The loop breaker took the tools away: the next request carries none. */
    stopped: () => breaker.stopped(),
    /** In an unattended run, the calls held back for want of an owner to ask. */
    heldBack: (): readonly string[] => held,
  };
}

export type TrustGate = ReturnType<typeof createTrustGate>;

/** A call's effect; a tool that declares none is taken to reach outside. */
export function effectOf(tool: AnyTool, args: unknown): Effect {
  const { effect } = tool;
  if (effect === undefined) return 'external';
  return typeof effect === 'function' ? effect(args as never) : effect;
}
