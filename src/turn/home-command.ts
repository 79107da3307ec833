import { homeLabel } from '../core/home.ts';
import type { Address, ChatType } from '../core/types.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { People } from '../people/people.ts';

/** What making a group use the owner's home shares, said before it is done (SPEC §19). */
export const SHARES =
  "This group would use your own home in every pack: everyone here could then read and change your rows, your USER.md and MEMORY.md, your files and your jobs' data through me, and what they write lands in your home.";

/**
 * `/home` says whose home this chat uses; `/home mine` (the owner, in a group) says what it
 * shares, and `/home mine yes` makes the group use the owner's home.
 */
export function homeCommand(
  deps: { people: Pick<People, 'isOwner' | 'belonging' | 'useOwnerHome'> },
  event: {
    address: Address;
    chatType: ChatType;
    senderId: string;
    senderName?: string;
    args: string;
  },
): OutboundText {
  const words = event.args.trim().toLowerCase().split(/\s+/).filter(Boolean);
  // Resolved as a message here would be: a group met for the first time gets its own home, so
  // it is never told (or assumed) to use the owner's before it does.
  const current = deps.people.belonging(event).home;
  if (words.length === 0) return plain(`This chat uses ${homeLabel(current)}.`);
  if (words[0] !== 'mine' || words.length > 2 || (words[1] !== undefined && words[1] !== 'yes'))
    return plain('Send /home to see whose home this chat uses, or /home mine in a group.');
  if (!deps.people.isOwner(event.address.platform, event.senderId))
    return plain('Only the owner can make a group use the owner’s home.');
  if (event.chatType === 'private')
    return plain('/home mine is for a group: a private chat has its person’s home.');
  if (current.kind === 'owner') return plain('This group uses your home already.');
  if (words[1] !== 'yes') return plain(`${SHARES}\n\nSend /home mine yes to do it.`);
  deps.people.useOwnerHome(event.address);
  return plain('This group uses your home now. Its own home stays on disk, unused.');
}
