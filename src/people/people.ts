import type { Clock } from '../core/clock.ts';
import { type Home, OWNER_HOME } from '../core/home.ts';
import type { Address, InboundMeta } from '../core/types.ts';
import { type HomeRow, OWNER, type PeopleRepo } from '../store/people-repo.ts';

export { OWNER } from '../store/people-repo.ts';

/** What the people module needs of the edges and of pairing. */
export interface PeopleDeps {
  repo: PeopleRepo;
  clock: Clock;
  /**
   * Whether `platform`'s edge lets strangers in at all: an edge without a gate (the web chat,
   * the terminal, the scheduler) is the owner's own, and every event on it is the owner's.
   */
  gated(platform: string): boolean;
  isPaired(platform: string, senderId: string): boolean;
}

/** Who a turn is for and whose home it uses (SPEC §19). */
export interface Belonging {
  /** `people.id`: `owner`, or another person. */
  person: string;
  home: Home;
}

/**
 * People and their homes (SPEC §19). The owner is recorded once per edge (the first id at the
 * first start); everyone else becomes a person on their first message, named by the edge.
 * A private chat uses its person's home, a group its own (made on first contact), unless the
 * owner gave it theirs (`/home mine`, `/topics`); chats bound before people were kept are
 * `legacy`: a group keeps the owner's home, a private chat of someone else starts theirs.
 */
/** How often a person's `last_message_at` is written at most (it is shown to the minute). */
const LAST_MESSAGE_EVERY_MS = 60_000;

export function createPeople(deps: PeopleDeps) {
  const { repo, clock } = deps;

  /**
   * The owner's sender id on `platform`, as recorded (undefined: not recorded there). Read on
   * every turn, and never changed once recorded: kept once found (not while unrecorded, which
   * another process may change).
   */
  const owners = new Map<string, string>();
  function ownerOn(platform: string): string | undefined {
    const known = owners.get(platform);
    if (known !== undefined) return known;
    const recorded = repo.ownerOn(platform);
    if (recorded !== undefined) owners.set(platform, recorded);
    return recorded;
  }

  function isOwner(platform: string, senderId: string): boolean {
    if (!deps.gated(platform)) return true;
    return ownerOn(platform) === senderId;
  }

  /**
   * A person's last message, as `/people` shows it (to the minute): written at most once a
   * minute per person, so a turn does not pay a write (and a commit) for it every time.
   */
  const lastWritten = new Map<string, number>();
  function noteMessage(person: string): void {
    const now = clock.now();
    const before = lastWritten.get(person);
    if (before !== undefined && now - before < LAST_MESSAGE_EVERY_MS) return;
    lastWritten.set(person, now);
    repo.update(person, { lastMessageAt: now });
  }

  /** The person an event's sender is, added on first sight. */
  function personOf(event: Pick<InboundMeta, 'address' | 'senderId' | 'senderName'>): string {
    const { platform } = event.address;
    if (isOwner(platform, event.senderId)) return OWNER;
    const known = repo.personOf(platform, event.senderId);
    if (known !== undefined) return known;
    // A person's id is their first edge's id, unless another person has it already.
    const id = repo.get(event.senderId) ? `${event.senderId}@${platform}` : event.senderId;
    repo.add(
      {
        id,
        name: event.senderName ?? event.senderId,
        via: deps.isPaired(platform, event.senderId) ? 'paired' : 'listed',
        createdAt: clock.now(),
      },
      platform,
      event.senderId,
    );
    return id;
  }

  const rowOf = (address: Address, threadId = address.threadId ?? '') =>
    repo.home(address.platform, address.chatId, threadId);

  function set(address: Address, threadId: string, kind: HomeRow['kind'], ref: string | null) {
    repo.setHome({ platform: address.platform, chatId: address.chatId, threadId, kind, ref });
  }

  /** The home a row names; undefined for a legacy row (resolved by its next message). */
  function homeOfRow(row: HomeRow): Home | undefined {
    if (row.kind === 'owner') return OWNER_HOME;
    if (row.kind === 'person') return { kind: 'person', person: row.ref ?? OWNER };
    if (row.kind === 'group') return { kind: 'group', group: row.ref ?? row.chatId };
    return undefined;
  }

  return {
    /**
     * Records `senderId` as the owner on `platform` unless one is recorded there: the first id
     * at the first start; reordering the allowlist later moves no one.
     */
    recordOwner(platform: string, senderId: string): void {
      if (repo.ownerOn(platform) !== undefined) return;
      repo.add(
        { id: OWNER, name: 'owner', via: 'owner', createdAt: clock.now() },
        platform,
        senderId,
      );
    },

    ownerOn,
    /** How a person is called (their id when they are not known). */
    nameOf: (person: string) => repo.get(person)?.name ?? person,
    /** A person's sender id on `platform`, if they have one there. */
    senderOn: (person: string, platform: string) =>
      repo.idsOf(person).find((i) => i.platform === platform)?.senderId,
    /** The owner's private chat on `platform` (asked there about MCP calls of others). */
    ownerChat: (platform: string) => repo.ownerChat(platform),
    isOwner,
    personOf,

    /**
     * A person's daily caps: PERSON_DAILY_* (`defaults`), their spend cap as `/people cap` set
     * it; none for the owner.
     */
    capsOf(
      person: string,
      defaults: { dailyUsd: number; dailyTokens: number },
    ): { dailyUsd: number; dailyTokens: number } | undefined {
      if (person === OWNER) return undefined;
      const own = repo.get(person)?.dailyUsd;
      return { dailyUsd: own ?? defaults.dailyUsd, dailyTokens: defaults.dailyTokens };
    },

    /**
     * Who a message's turn is for and whose home it uses; records the conversation's home on
     * first contact and the person's last message.
     */
    belonging(
      event: Pick<InboundMeta, 'address' | 'senderId' | 'senderName' | 'chatType'>,
    ): Belonging {
      const person = personOf(event);
      noteMessage(person);
      const { address } = event;
      const row = rowOf(address) ?? (address.threadId ? rowOf(address, '') : undefined);
      const known = row && homeOfRow(row);
      if (known) return { person, home: known };
      if (event.chatType === 'private') {
        const own = person === OWNER;
        repo.setChat(address.platform, event.senderId, address.chatId);
        set(address, '', own ? 'owner' : 'person', own ? null : person);
        return { person, home: own ? OWNER_HOME : { kind: 'person', person } };
      }
      if (row?.kind === 'legacy') {
        // A group bound before people were kept keeps the home it used: the owner's.
        set(address, '', 'owner', null);
        return { person, home: OWNER_HOME };
      }
      // The group's folder is named once, so a group that moves to a new id keeps it.
      const group = `${address.platform}-${address.chatId}`;
      set(address, '', 'group', group);
      return { person, home: { kind: 'group', group } };
    },

    /**
     * The home of a conversation for work no message started (a job's run): the one it was
     * given; a chat never resolved uses the owner's (where its data was before).
     */
    homeOf(address: Address): Home {
      const row = rowOf(address) ?? (address.threadId ? rowOf(address, '') : undefined);
      return (row && homeOfRow(row)) ?? OWNER_HOME;
    },

    /** Everyone, the owner first (`/people`). */
    list: () => repo.list().sort((a, b) => Number(b.id === OWNER) - Number(a.id === OWNER)),

    get: (id: string) => repo.get(id),

    /** `/people cap ID USD`: that person's daily spend cap. */
    setCap(id: string, usd: number): void {
      repo.update(id, { dailyUsd: usd });
    },

    /**
     * `/people remove ID`: marks them removed and pauses their jobs (those they made and those
     * of their private chats); their ids on the edges, for the edge to take back its pairing.
     * Returns how many jobs paused.
     */
    remove(id: string): { jobs: number; ids: { platform: string; senderId: string }[] } {
      repo.update(id, { removedAt: clock.now() });
      const chats = repo.chatsOf(id).map((c) => ({ platform: c.platform, chatId: c.chatId }));
      return { jobs: repo.pauseJobsOf(id, chats), ids: repo.idsOf(id) };
    },

    /** `/people purge ID`: their rows go (their ledger rows keep the id). */
    forget(id: string): void {
      repo.delete(id);
      lastWritten.delete(id);
    },

    /**
     * Whether `/people` should say that what others wrote before the upgrade stayed in the
     * owner's home: true once.
     */
    takeUpgradeNote(): boolean {
      const owner = repo.get(OWNER);
      if (!owner?.upgradeNote) return false;
      repo.update(OWNER, { upgradeNote: false });
      return true;
    },

    /** `/home mine` and `/topics` by the owner: the chat (or one topic) uses the owner's home. */
    useOwnerHome(address: Address, topic?: string): void {
      set(address, topic ?? '', 'owner', null);
    },
  };
}

export type People = ReturnType<typeof createPeople>;
