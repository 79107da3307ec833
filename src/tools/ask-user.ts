import { z } from 'zod';
import { escapeMarkdown } from '../outbound/compose.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

/** How long a question waits for a press before the turn goes on without an answer. */
export const ASK_TIMEOUT_MS = 10 * 60 * 1000;
/** What the model reads when `channel` ("Telegram", "the web chat") refused the question. */
export const notShown = (channel: string): string =>
  `the question could not be sent to the user (${channel} refused it), so there is no answer`;
export const NO_ANSWER = 'no answer (the user did not press a button within 10 minutes)';
/** Shown under a question whose time ran out (its buttons are gone). */
export const NOT_ANSWERED_NOTE = '(not answered)';

const schema = z.object({
  question: z.string().min(1),
  options: z.array(z.string().min(1).max(40)).min(2).max(8),
});

type AskContext = Pick<
  TurnToolContext,
  'outbox' | 'address' | 'asks' | 'senderId' | 'senderName' | 'channelName'
>;

/**
 * `ask_user`: a question with inline buttons; the turn waits for the press. Only a press in
 * this chat (and topic) by the sender of the turn's message answers it. Once answered (or
 * timed out) the question is edited to show the choice, without its buttons.
 */
export function createAskUserTool(ctx: AskContext, timeoutMs = ASK_TIMEOUT_MS) {
  return defineTool({
    name: 'ask_user',
    waitsForUser: true,
    description:
      'Ask the user a question with 2–8 answer buttons and wait for the press. Returns the chosen option.',
    schema,
    effect: 'read',
    async run({ question, options }, signal) {
      const id = ctx.asks.newId();
      const keyboard = options.map((text, i) => [{ text, data: ctx.asks.data(id, i) }]);
      const asked = { address: ctx.address, userId: ctx.senderId, name: ctx.senderName };
      const answer = ctx.asks.wait(id, options, asked, timeoutMs, signal);
      const rows = ctx.outbox.write(ctx.address, { text: question, format: 'markdown', keyboard });
      const shown = await ctx.outbox.dispatch(rows);
      if (!shown) {
        ctx.asks.cancel(id);
        await answer;
        throw new ToolError(notShown(ctx.channelName));
      }
      const chosen = await answer;
      await showChoice(ctx, rows, question, chosen);
      return chosen === undefined ? NO_ANSWER : `The user chose: ${chosen}`;
    },
  });
}

/**
 * Replaces the question's buttons with the choice, so an answered question cannot be
 * pressed again. Only a question shown as one message is edited (a longer one keeps its
 * buttons; a press of them is answered "already answered"). Not stored: the edit is for the
 * eye only, and a channel without edits (the terminal) skips it; a failed one is logged.
 */
export async function showChoice(
  ctx: Pick<AskContext, 'outbox' | 'address'>,
  rows: number[],
  question: string,
  chosen: string | undefined,
): Promise<void> {
  const messageId = rows.length === 1 ? ctx.outbox.messageIdOf(rows[0] as number) : undefined;
  if (messageId === undefined) return;
  const note =
    chosen === undefined ? escapeMarkdown(NOT_ANSWERED_NOTE) : `→ **${escapeMarkdown(chosen)}**`;
  const parts = ctx.outbox
    .renderFor(ctx.address)
    .text({ text: `${question}\n\n${note}`, format: 'markdown' });
  const [part] = parts;
  if (part && parts.length === 1) await ctx.outbox.editLive(ctx.address, messageId, part);
}
