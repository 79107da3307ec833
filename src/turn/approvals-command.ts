import { type OutboundText, plain } from '../outbound/compose.ts';
import type { PackRegistry } from '../packs/registry.ts';
import type { GrantRepo } from '../store/grant-repo.ts';
import { formatLocal } from '../time/local-time.ts';

/**
 * `/approvals` lists the owner's "Always allow" answers (SPEC §17); `/approvals reset`
 * removes them all, so every such call asks again.
 */
export function approvalsCommand(
  deps: {
    grants: Pick<GrantRepo, 'list' | 'reset'>;
    /** The home of the chat it is sent in: its grants are listed and reset (SPEC §19). */
    home: string;
    packs: Pick<PackRegistry, 'get'>;
    timezone: string;
    now: number;
  },
  args: string,
): OutboundText {
  const word = args.trim().toLowerCase();
  if (word === 'reset') {
    const removed = deps.grants.reset(deps.home);
    return plain(
      removed === 0
        ? 'There were no standing approvals to remove.'
        : `Removed ${removed} standing approval${removed === 1 ? '' : 's'}: those calls ask again.`,
    );
  }
  if (word !== '') return plain('Send /approvals to list standing approvals, or /approvals reset.');
  const grants = deps.grants.list(deps.home);
  if (grants.length === 0)
    return plain('No standing approvals. When a call waits for you, "Always allow" adds one here.');
  const lines = grants.map((g) => {
    const label = deps.packs.get(g.pack)?.displayName ?? g.pack;
    return `• ${g.tool} in ${label} (since ${formatLocal(g.grantedAt, deps.timezone, deps.now)})`;
  });
  return plain(
    ['Always allowed, without asking:', ...lines, '', '/approvals reset removes them all.'].join(
      '\n',
    ),
  );
}
