import type { Home } from '../core/home.ts';
import type { ChatModel, UserInput } from '../core/ports.ts';
import type { Address, InboundEvent } from '../core/types.ts';
import type { Pack, Skill } from '../packs/loader.ts';
import type { PackStorage } from '../packs/storage.ts';
import type { Route } from '../routing/router.ts';
import type { SessionRow } from '../store/session-repo.ts';
import type { PackCaps } from '../usage/quota.ts';
import type { Note } from './inputs.ts';
import type { Turns } from './services.ts';
import type { SteerBox } from './steering.ts';

/** One chat turn as the pipeline asks for it (chat-turn.ts runs it in steps). */
export interface ChatTurn {
  events: InboundEvent[];
  pack: string;
  /** What the user said, one input per message; made from `events` when not given. */
  inputs?: UserInput[];
  pinned?: Skill;
  /**
   * The turn is `pack`'s though the conversation may be bound to another: a reply to a job's
   * message of that pack (SPEC §8), or a button of its action handing over. It runs in
   * `pack`'s own chat session without rebinding, as a skill command of another pack does.
   */
  visit?: boolean;
  signal: AbortSignal;
  /**
   * A scheduled run: its own session, nothing streamed, `[SILENT]` sends nothing; its calls
   * are booked to the job `id`, and its own `model` (a cron entry's) answers if it has one.
   */
  job?: {
    session: SessionRow;
    id: string;
    model?: string | undefined;
    /** Why its runs start tainted (SPEC §17): the sources of the session that made it. */
    taint?: readonly string[] | undefined;
    /** Who created it (`people.id`): its runs are booked to them (SPEC §19). */
    person?: string | undefined;
  };
  /** What happened since the last turn (reactions): inputs before the messages. */
  notes?: Note[];
  /** Queue mode `steer`: the person's texts sent while the turn runs, taken in as it goes. */
  steer?: SteerBox;
  /** The person's message resumed jobs paused for idleness: this note ends the answer. */
  resumed?: string;
}

/** Where the turn runs and who answers: found once, read by every step. */
export interface Routed {
  turnId: string;
  started: number;
  address: Address;
  route: Route;
  pack: Pack | undefined;
  /** Whose data the turn uses (SPEC §19): `storage` is the pack's in this home. */
  home: Home;
  storage: PackStorage | undefined;
  /**
   * Who the turn is for (`people.id`; booked on its ledger rows): the first sender, a job's
   * creator; null for a job no person's chat owns (a manifest job in a group).
   */
  person: string | null;
  /** Whose daily caps apply: the person, but never the owner, nor a job's run in a group. */
  capPerson: string | null;
  model: ChatModel;
  packCaps: PackCaps;
  /** With several packs, a private reply says which pack gave it. */
  badge: string;
  /** `/usage footer on` here, as the turn started (the footer is read after the answer). */
  usageFooter: boolean;
}

/** Images go to the model only when whoever answers can see them (the fallback too). */
export const acceptsImages = (
  services: { turns: Pick<Turns, 'fallbackAcceptsImages'> },
  routed: Routed,
) => routed.model.info.acceptsImages && services.turns.fallbackAcceptsImages;

/** Where this turn's usage is booked. */
export const scopeOf = (turn: ChatTurn, routed: Routed) => ({
  pack: turn.pack,
  chatId: routed.address.chatId,
  threadId: routed.address.threadId ?? null,
  sessionId: routed.route.session.id,
  turnId: routed.turnId,
  person: routed.person,
  capPerson: routed.capPerson,
  channel: routed.address.platform,
});
