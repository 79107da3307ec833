import type { TurnInput, TurnResult } from '../agent/agent.ts';
import type { Logger } from '../core/ports.ts';
import type { Address, JobRun } from '../core/types.ts';
import { type SessionRow, taintOf } from '../store/session-repo.ts';
import { createChatApprover } from '../tools/trust/approval.ts';
import { createTrustGate, type TrustGate } from '../tools/trust/gate.ts';
import type { SeenPiece } from '../tools/trust/seen.ts';
import type { Delivery, Runtime, Turns } from './services.ts';

export interface TrustServices {
  turns: Pick<Turns, 'trust' | 'asks'>;
  delivery: Pick<Delivery, 'outbox'>;
  runtime: Pick<Runtime, 'clock'>;
}

/**
 * The turn's trust gate (SPEC §17): the owner is asked in this chat, with buttons; a
 * scheduled run has nobody to ask, so what needs approval is held back. Taint belongs to
 * the session: a session tainted before starts so, and what taints it now is kept until
 * /new; a job's run starts tainted when the job was made in a tainted session.
 */
export function trustGate(
  services: TrustServices,
  turn: {
    job: Pick<JobRun, 'taint'> | undefined;
    pack: string;
    label: string;
    address: Address;
    session: SessionRow;
  },
  log: Logger,
): TrustGate {
  const { trust, asks } = services.turns;
  const { address, session } = turn;
  const sources = [...(taintOf(session)?.sources ?? []), ...(turn.job?.taint ?? [])];
  return createTrustGate({
    policy: trust.policy,
    pack: { name: turn.pack, label: turn.label },
    session: {
      sources: [...new Set(sources)],
      // A run's URLs come from its own prompt and what it reads; a chat's, from its history.
      ...(turn.job ? {} : { earlier: () => earlierPieces(trust.sessions, session) }),
    },
    onTaint: (added) => trust.sessions.taint(session.id, added, services.runtime.clock.now()),
    approver: turn.job
      ? undefined
      : createChatApprover({
          outbox: services.delivery.outbox,
          asks,
          address,
          owner: trust.owner(address),
          timeoutMs: trust.timeoutMs,
        }),
    grants: trust.grants,
    now: () => services.runtime.clock.now(),
    log,
  });
}

/** What the session read before this turn: the owner's messages, and its tools' results. */
function earlierPieces(
  sessions: Pick<Turns['trust']['sessions'], 'history'>,
  session: SessionRow,
): SeenPiece[] {
  const pieces: SeenPiece[] = session.summary ? [{ from: 'result', text: session.summary }] : [];
  for (const m of sessions.history(session.id, session.summaryUpto)) {
    if (m.role === 'user') pieces.push({ from: 'owner', text: m.content });
    else if (m.role === 'tool') pieces.push({ from: 'result', text: m.content });
  }
  return pieces;
}

/** A scheduled run's answer says which calls it held back, and why (even a `[SILENT]` one). */
export function heldBackNoted(
  run: { input: TurnInput; result: TurnResult },
  gate: TrustGate | undefined,
  silent: string,
): { input: TurnInput; result: TurnResult } {
  const held = gate?.heldBack() ?? [];
  if (held.length === 0) return run;
  const note = `Held back: ${held.join(', ')}. This scheduled run read outside content, and these calls need your approval, which a scheduled run cannot ask for. Run it in the chat to approve them.`;
  const answer = run.result.answer.trim() === silent ? note : `${run.result.answer}\n\n${note}`;
  return { ...run, result: { ...run.result, answer } };
}
