import type { Address, ChatType } from '../core/types.ts';
import type { Pack } from '../packs/loader.ts';
import type { Conversing } from './services.ts';

/**
 * The pack badge that ends a reply (SPEC §4, §8): with several packs installed, a reply says
 * which pack gave it — always in a private chat, and elsewhere (a group, a topic) when its
 * pack is not the one active there: a job of another pack, or a reply to one. Read it after
 * the turn's session is found, which binds the pack of a person's turn.
 */
export function badgeOf(
  services: { conversing: Pick<Conversing, 'packs' | 'router'> },
  address: Address,
  chatType: ChatType,
  pack: Pack | undefined,
): string {
  const { packs, router } = services.conversing;
  if (!pack || packs.list().length < 2) return '';
  const foreign = router.boundPack(address) !== pack.name;
  return chatType === 'private' || foreign ? `\n\n— ${pack.displayName}` : '';
}
