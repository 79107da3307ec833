import type { Effect } from '../../core/trust.ts';
import type { Address } from '../../core/types.ts';
import { escapeMarkdown } from '../../outbound/compose.ts';
import type { Outbox } from '../../outbound/outboxes.ts';
import { showChoice } from '../ask-user.ts';
import type { AskRegistry } from '../asks.ts';
import { shownArguments } from './shown-args.ts';

/** What the owner is asked to approve. */
export interface ApprovalRequest {
  tool: string;
  /** The pack's name (grants are kept by it) and how the owner knows it. */
  pack: string;
  packLabel: string;
  effect: Effect;
  args: unknown;
  /** Why it asks: the untrusted sources that tainted the turn (none under `always`). */
  sources: readonly string[];
  /** A `web_fetch` of a URL the turn never saw (its effect is `read`). */
  unseenUrl: boolean;
}

/** The owner's answer; `unshown` when the question could not be shown at all. */
export type ApprovalAnswer = 'once' | 'always' | 'denied' | 'timeout' | 'unshown';

export interface Approver {
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** What anyone but the owner hears when they press an approval button. */
export const ONLY_OWNER = 'Only the owner can approve this.';

export const ALLOW_ONCE = 'Allow once';
export const DENY = 'Deny';
export const alwaysAllow = (tool: string, pack: string) => `Always allow ${tool} in ${pack}`;

export interface ChatApproverDeps {
  outbox: Outbox;
  asks: AskRegistry;
  address: Address;
  /** Who may answer: the owner's id on this channel; undefined where only the owner is. */
  owner: string | undefined;
  timeoutMs: number;
}

/**
 * Asks in the turn's own chat, with three buttons only the owner may press (a channel
 * without buttons takes `y` and `n`). The turn waits up to `timeoutMs`; the question then
 * shows the answer in place of its buttons.
 */
export function createChatApprover(deps: ChatApproverDeps): Approver {
  const { outbox, asks, address } = deps;
  return {
    async ask(request, signal) {
      const id = asks.newId();
      const options = [ALLOW_ONCE, alwaysAllow(request.tool, request.pack), DENY];
      const keys = ['y', 'a', 'n'];
      const keyboard = options.map((text, i) => [
        { text, data: asks.data(id, i), key: keys[i] as string },
      ]);
      const to = { address, userId: deps.owner, othersHear: ONLY_OWNER };
      const answer = asks.wait(id, options, to, deps.timeoutMs, signal);
      const text = approvalText(request);
      const rows = outbox.write(address, { text, format: 'markdown', keyboard });
      if (!(await outbox.dispatch(rows))) {
        asks.cancel(id);
        await answer;
        return 'unshown';
      }
      const chosen = await answer;
      await showChoice({ outbox, address }, rows, text, chosen ?? 'not answered: denied');
      if (chosen === undefined) return 'timeout';
      return chosen === ALLOW_ONCE ? 'once' : chosen === DENY ? 'denied' : 'always';
    },
  };
}

const WHAT: Record<Effect, string> = {
  write: 'change what satchel keeps',
  external: 'reach outside satchel',
  read: 'read',
};

/** The question: the tool, what it would do and why it asks, then its arguments. */
export function approvalText(request: ApprovalRequest): string {
  const what = request.unseenUrl
    ? 'fetch a URL that did not appear in this conversation'
    : WHAT[request.effect];
  const why =
    request.sources.length > 0
      ? `This turn read outside content (${request.sources.map(escapeMarkdown).join(', ')}), and this call would ${what}.`
      : `This call would ${what}.`;
  return [
    `🔐 **Allow ${escapeMarkdown(request.tool)}?** (${escapeMarkdown(request.packLabel)})`,
    why,
    `\`\`\`\n${shownArguments(request.args).replaceAll('```', "'''")}\n\`\`\``,
  ].join('\n');
}
