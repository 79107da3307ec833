import type { TurnInput, TurnResult } from '../agent/agent.ts';
import { type Home, homeKey } from '../core/home.ts';
import type { Logger } from '../core/ports.ts';
import type { Address, JobRun } from '../core/types.ts';
import { CORE_TOOLS } from '../packs/manifest.ts';
import { type SessionRow, taintOf } from '../store/session-repo.ts';
import { type Approver, createChatApprover } from '../tools/trust/approval.ts';
import { createTrustGate, type TrustGate } from '../tools/trust/gate.ts';
import type { SeenPiece } from '../tools/trust/seen.ts';
import type { Conversing, Delivery, Runtime, Turns } from './services.ts';

export interface TrustServices {
  turns: Pick<Turns, 'trust' | 'asks'>;
  delivery: Pick<Delivery, 'outbox'>;
  runtime: Pick<Runtime, 'clock'>;
  conversing: Pick<Conversing, 'people'>;
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
    /** Whose home the turn uses: its person approves, and its grants hold (SPEC §17, §19). */
    home: Home;
  },
  log: Logger,
): TrustGate {
  const { trust } = services.turns;
  const { address, session, home } = turn;
  const key = homeKey(home);
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
    approver: turn.job ? undefined : approverFor(services, address, home),
    grants: {
      has: (pack, tool) => trust.grants.has(key, pack, tool),
      grant: (pack, tool, at) => trust.grants.grant(key, pack, tool, at),
    },
    now: () => services.runtime.clock.now(),
    log,
  });
}

/**
 * Who approves (SPEC §17): on the owner's home and in groups, the owner, in the turn's chat; in
 * a person's private chat, that person, except for an MCP tool's call (a server on the owner's
 * machine, with the owner's settings), which is asked of the owner in the owner's private chat,
 * naming the person.
 */
function approverFor(services: TrustServices, address: Address, home: Home): Approver {
  const { trust, asks } = services.turns;
  const { outbox } = services.delivery;
  const { people } = services.conversing;
  const ask = (to: Address, owner: string | undefined) =>
    createChatApprover({ outbox, asks, address: to, owner, timeoutMs: trust.timeoutMs });
  if (home.kind !== 'person') return ask(address, trust.owner(address));
  // Who is asked is looked up when a call asks, not on every turn.
  return {
    ask(request, signal) {
      if (CORE_TOOLS.includes(request.tool as never)) {
        const person = ask(address, people.senderOn(home.person, address.platform));
        return person.ask(request, signal);
      }
      const ownerChat = people.ownerChat(address.platform);
      // Nowhere to ask the owner yet (they never wrote privately here): not approved.
      if (!ownerChat) return Promise.resolve('unshown');
      const to = { platform: address.platform, chatId: ownerChat.chatId };
      const named = {
        ...request,
        packLabel: `${request.packLabel}, for ${people.nameOf(home.person)}`,
      };
      return ask(to, ownerChat.senderId).ask(named, signal);
    },
  };
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
