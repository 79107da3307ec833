import type { Address } from '../core/types.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import { OWNER, type People } from '../people/people.ts';
import type { Person } from '../store/people-repo.ts';
import { formatLocal } from '../time/local-time.ts';
import { usd } from '../usage/money.ts';
import type { UsageSums } from '../usage/sums.ts';

export interface PeopleCommandDeps {
  people: Pick<
    People,
    'isOwner' | 'list' | 'get' | 'setCap' | 'remove' | 'forget' | 'takeUpgradeNote'
  >;
  /** What each person cost today and in all. */
  costs(): Map<string, { today: UsageSums; all: UsageSums }>;
  /** Takes an edge's pairing of a user back (a paired person removed). */
  unpair(userId: string): void;
  /** Removes a person's home in every pack; how many packs had one. */
  removeHome(person: string): number;
  /** PERSON_DAILY_USD: shown where a person has no cap of their own. */
  defaultCapUsd: number;
  timezone: string;
  now: number;
}

const USAGE =
  'Send /people to list everyone, /people cap ID USD to set a daily spend cap, /people remove ID to take a paired person out, or /people purge ID to delete their homes.';

/**
 * `/people` (SPEC §19), the owner's alone, on any channel: everyone with how they got in, their
 * spend today and in all and their last message; `cap`, `remove`, `purge`. The first listing
 * after the upgrade says once that what others wrote before stayed in the owner's home.
 */
export function peopleCommand(
  deps: PeopleCommandDeps,
  event: { address: Address; senderId: string; args: string },
): OutboundText {
  if (!deps.people.isOwner(event.address.platform, event.senderId))
    return plain('Only the owner can see and change who uses me.');
  const [verb, id, amount, ...rest] = event.args.trim().split(/\s+/).filter(Boolean);
  if (verb === undefined) return plain(listing(deps));
  const person = id === undefined ? undefined : deps.people.get(id);
  if (rest.length > 0 || id === undefined) return plain(USAGE);
  if (!person) return plain(`Nobody has the id ${id}: /people lists them.`);
  if (person.id === OWNER) return plain('That is you, the owner.');
  switch (verb.toLowerCase()) {
    case 'cap':
      return plain(cap(deps, person, amount));
    case 'remove':
      return plain(remove(deps, person));
    case 'purge':
      if (amount !== undefined) return plain(USAGE);
      return plain(purge(deps, person));
    default:
      return plain(USAGE);
  }
}

function cap(deps: PeopleCommandDeps, person: Person, amount: string | undefined): string {
  const value = Number(amount?.replace(/^\$/, ''));
  if (amount === undefined || !Number.isFinite(value) || value < 0)
    return 'Give the cap in USD: /people cap ID 0.25 (0 = no cap).';
  deps.people.setCap(person.id, value);
  return value === 0
    ? `${person.name} (${person.id}) has no daily spend cap now.`
    : `${person.name} (${person.id}) may spend up to ${usd(value)} a day now.`;
}

function remove(deps: PeopleCommandDeps, person: Person): string {
  if (person.via === 'listed')
    return `${person.name} (${person.id}) is listed in ALLOWED_USER_IDS: remove the id there and restart to take them out.`;
  const { jobs, ids } = deps.people.remove(person.id);
  for (const { senderId } of ids) deps.unpair(senderId);
  const paused = jobs === 0 ? '' : ` ${jobs} job${jobs === 1 ? '' : 's'} of theirs paused.`;
  return `Removed ${person.name} (${person.id}): they are a stranger again.${paused} Their homes stay until /people purge ${person.id}.`;
}

function purge(deps: PeopleCommandDeps, person: Person): string {
  if (person.removedAt === null && person.via === 'paired') {
    const { ids } = deps.people.remove(person.id);
    for (const { senderId } of ids) deps.unpair(senderId);
  }
  const homes = deps.removeHome(person.id);
  deps.people.forget(person.id);
  return `Deleted the homes of ${person.name} (${person.id}) in ${homes} pack${homes === 1 ? '' : 's'}.`;
}

function listing(deps: PeopleCommandDeps): string {
  const costs = deps.costs();
  const spend = (sums: UsageSums | undefined) => usd(sums?.cost_usd ?? 0);
  const lines = deps.people.list().map((p) => {
    const cost = costs.get(p.id);
    const how = p.id === OWNER ? 'the owner' : p.removedAt !== null ? 'removed' : p.via;
    const capText = p.id === OWNER ? '' : `, cap ${usd(p.dailyUsd ?? deps.defaultCapUsd)}/day`;
    const last =
      p.lastMessageAt === null
        ? 'no message yet'
        : `last message ${formatLocal(p.lastMessageAt, deps.timezone, deps.now)}`;
    return `• ${p.name} — id ${p.id} — ${how}; ${spend(cost?.today)} today, ${spend(cost?.all)} in all${capText}; ${last}`;
  });
  const note = deps.people.takeUpgradeNote()
    ? [
        '',
        'Since people each have their own home: what others wrote before stayed in your home (it cannot be told apart from yours); from now on each starts with an empty one.',
      ]
    : [];
  const shown = lines.length > 0 ? lines : ['Nobody yet.'];
  return ['People:', ...shown, ...note, '', USAGE].join('\n');
}
