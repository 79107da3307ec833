import type { Effect } from '../../core/trust.ts';
import type { Address } from '../../core/types.ts';
import { escapeMarkdown } from '../../outbound/compose.ts';
import type { Outbox } from '../../outbound/outboxes.ts';
import { showChoice } from '../ask-user.ts';
import type { AskRegistry } from '../asks.ts';
import { shownArguments, shownArgumentsApart } from './shown-args.ts';
import { visibleCodes } from './visible-codes.ts';

/** The turn's limit of fetches of URLs only outside content named (gate.ts). */
export const UNTRUSTED_FETCH_LIMIT = 3;

/** What the owner is asked to approve. */
export interface ApprovalRequest {
  tool: string;
  /** The pack's name (grants are kept by it) and how the owner knows it. */
  pack: string;
  packLabel: string;
  effect: Effect;
  args: unknown;
  /** Why it asks (see `whyText`). */
  reason: ApprovalReason;
  /** The untrusted sources that tainted the session, first ones first (none if clean). */
  sources: readonly string[];
}

/**
 * Why a call waits for the owner (SPEC §17): TOOL_APPROVAL=always; a write or external call
 * in a tainted session; a fetch of a URL neither the owner nor outside content named, or one
 * past the turn's limit of URLs only outside content named; the memory flush of a tainted
 * history.
 */
export type ApprovalReason = 'always' | 'tainted' | 'unseen-url' | 'fetch-limit' | 'flush';

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
      const render = outbox.renderFor(address);
      const fits = (text: string) =>
        render.text({ text, format: 'markdown', keyboard }).length <= 1;
      const { before, question } = approvalMessages(request, fits);
      const shown = before.flatMap((text) => outbox.write(address, { text, format: 'markdown' }));
      const rows = outbox.write(address, { text: question, format: 'markdown', keyboard });
      if (!(await outbox.dispatch([...shown, ...rows]))) {
        asks.cancel(id);
        await answer;
        return 'unshown';
      }
      const chosen = await answer;
      await showChoice({ outbox, address }, rows, question, chosen ?? 'not answered: denied');
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

/** Why the question is asked, in the owner's words: what the call would do, and what read. */
export function whyText(request: Pick<ApprovalRequest, 'reason' | 'effect' | 'sources'>): string {
  const read =
    request.sources.length > 0
      ? `This conversation read outside content (${request.sources.map((s) => escapeMarkdown(visibleCodes(s))).join(', ')})`
      : 'This run read outside content';
  switch (request.reason) {
    case 'always':
      return `This call would ${WHAT[request.effect]}. TOOL_APPROVAL=always asks for every such call.`;
    case 'tainted':
      return `${read}, and this call would ${WHAT[request.effect]}. Outside content can carry instructions: allow only what you asked for. /new starts a clean session.`;
    case 'unseen-url':
      return `${read}, and this call would fetch a URL that did not appear in this conversation (not in your messages, not in that content): a URL the model builds can carry your data out.`;
    case 'fetch-limit':
      return `${read}, and this turn already fetched ${UNTRUSTED_FETCH_LIMIT} URLs that only that content named: which ones it fetches could spell out your data.`;
    case 'flush':
      return `${read}. Before older messages are summarised, these notes would be added to MEMORY.md; without your tap they are not.`;
  }
}

/**
 * The question: the tool, what it would do and why it asks, then its arguments (`args`: all
 * of them whole but for shortened ordinary values, unless approvalMessages quotes less).
 */
export function approvalText(
  request: ApprovalRequest,
  args = shownArguments(request.args, request.tool),
): string {
  return [
    `🔐 **Allow ${escapeMarkdown(request.tool)}?** (${escapeMarkdown(request.packLabel)})`,
    whyText(request),
    codeBlock(args),
  ].join('\n');
}

/**
 * What asks (SPEC §17: shown exactly, never cut silently): the question alone when it `fits`
 * one message of the channel; otherwise the full text of a memory write or a job's prompt
 * first, a message of its own (the channel splits it if it must), then the question quoting
 * its start, so the question keeps its buttons and can show the answer in place of them.
 */
export function approvalMessages(
  request: ApprovalRequest,
  fits: (text: string) => boolean,
): { before: string[]; question: string } {
  const question = approvalText(request);
  if (fits(question)) return { before: [], question };
  const { text, apart } = shownArgumentsApart(request.args, request.tool);
  if (apart.length === 0) return { before: [], question };
  const before = apart.map(
    ({ name, text }) =>
      `The ${escapeMarkdown(name)} of the call below, in full (${text.length} characters):\n${codeBlock(visibleCodes(text))}`,
  );
  return { before, question: approvalText(request, text) };
}

/** `text` in a fenced code block whose fence no run of backticks in it can close. */
function codeBlock(text: string): string {
  const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}
