import { background } from '../core/background.ts';
import type { Logger } from '../core/ports.ts';
import type { Address, ChatType } from '../core/types.ts';
import { type Approval, MAX_PENDING, type Pairing } from '../inbound/pairing.ts';
import { minutes, whoIs } from '../inbound/pairing-notice.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { PairedUser, PairingCode } from '../store/pairing-repo.ts';
import { formatLocal } from '../time/local-time.ts';

export interface PairCommandDeps {
  pairing: Pick<Pairing, 'approve' | 'remove' | 'listing'>;
  /** The owner of `to`'s edge; undefined where only the owner is present (web, terminal). */
  owner(to: Address): string | undefined;
  /** Tells a user just paired that they are in (through the outbox); false: it cannot here. */
  tell(user: PairedUser): boolean;
  timezone: string;
}

interface PairEvent {
  address: Address;
  chatType: ChatType;
  senderId: string;
  args: string;
}

const USAGE =
  'Send /pair CODE to let in the person who was given that code, /pair to list pending ' +
  'codes and paired users, or /pair remove ID to take a pairing back.';

/**
 * `/pair` (SPEC §18), the owner's alone and only in a private chat (the list names people):
 * `/pair CODE` lets a stranger in and tells them, `/pair` lists pending codes and paired
 * users, `/pair remove ID` takes a pairing back.
 */
export function pairCommand(deps: PairCommandDeps, event: PairEvent): OutboundText {
  const owner = deps.owner(event.address);
  if (owner !== undefined && (event.senderId !== owner || event.chatType !== 'private'))
    return plain('Only the owner can pair people, in a private chat with me.');
  const words = event.args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return plain(listingText(deps));
  if (words[0]!.toLowerCase() === 'remove') {
    if (words.length !== 2) return plain(USAGE);
    const removed = deps.pairing.remove(words[1]!);
    return plain(
      removed.length === 0
        ? `${words[1]} is not paired (someone in ALLOWED_USER_IDS stays allowed: remove them there).`
        : `Removed the pairing of ${whoIs(removed[0]!)}: they are a stranger again.`,
    );
  }
  if (words.length !== 1) return plain(USAGE);
  const approval = deps.pairing.approve(words[0]!, 'command');
  if (!approval.ok) return plain(approvalText(approval));
  const told = deps.tell(approval.user);
  return plain(
    `${approvalText(approval)} ${told ? 'I have told them so.' : 'I cannot reach their chat from here: let them know yourself.'}`,
  );
}

/** The owner's answer to an approval (the command's and `satchel pair`'s). */
export function approvalText(approval: Approval): string {
  if (approval.ok) return `Paired ${whoIs(approval.user)}: they can talk to me now.`;
  return approval.reason === 'expired'
    ? `The code ${approval.code} has expired (codes are valid for an hour). Ask them to write to me again for a new one.`
    : `No pending code ${approval.code}. Check it, or send /pair to list the pending codes.`;
}

/** What a user just paired is told. */
export const PAIRED_NOTICE =
  'The owner approved you: you can talk to me now. Send me a message to start.';

/**
 * Tells a user just paired, in the chat their code was given in, through the outbox (so a
 * restart still sends it). A chat of a platform this process does not serve is only logged.
 */
export function tellPaired(outbox: Pick<Outbox, 'send'>, log: Logger) {
  return (user: PairedUser): boolean => {
    const to = { platform: user.platform, chatId: user.chatId };
    try {
      background(log, 'pairing_notice_failed', outbox.send(to, plain(PAIRED_NOTICE)));
      return true;
    } catch (error) {
      log.warn({ event: 'pairing_notice_failed', err: error }, 'could not tell the paired user');
      return false;
    }
  };
}

function listingText(deps: PairCommandDeps): string {
  const { pending, paired, now } = deps.pairing.listing();
  const lines = [
    pending.length === 0 ? 'No pending pairing codes.' : 'Pending pairing codes:',
    ...pending.map(
      (c: PairingCode) => `• ${c.code} — ${whoIs(c)} — expires in ${minutes(c.expiresAt - now)}`,
    ),
    ...(pending.length >= MAX_PENDING
      ? [
          `Pairing is full (${MAX_PENDING} codes, the most there can be): nobody new gets a code until one expires or you pair someone.`,
        ]
      : []),
    '',
    paired.length === 0 ? 'Nobody is paired.' : 'Paired:',
    ...paired.map((u) => `• ${whoIs(u)} — since ${formatLocal(u.pairedAt, deps.timezone, now)}`),
    '',
    USAGE,
  ];
  return lines.join('\n');
}
