import { z } from 'zod';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

/** How long a question waits for a press before the turn goes on without an answer. */
export const ASK_TIMEOUT_MS = 10 * 60 * 1000;
export const NOT_SHOWN =
  'the question could not be sent to the user (Telegram refused it), so there is no answer';
export const NO_ANSWER = 'no answer (the user did not press a button within 10 minutes)';

const schema = z.object({
  question: z.string().min(1),
  options: z.array(z.string().min(1).max(40)).min(2).max(8),
});

/**
 * `ask_user`: a question with inline buttons; the turn waits for the press. Only a press in
 * this chat (and topic) by the sender of the turn's message answers it.
 */
export function createAskUserTool(
  ctx: Pick<TurnToolContext, 'outbox' | 'address' | 'asks' | 'senderId' | 'senderName'>,
  timeoutMs = ASK_TIMEOUT_MS,
) {
  return defineTool({
    name: 'ask_user',
    waitsForUser: true,
    description:
      'Ask the user a question with 2–8 answer buttons and wait for the press. Returns the chosen option.',
    schema,
    async run({ question, options }, signal) {
      const id = ctx.asks.newId();
      const keyboard = options.map((text, i) => [{ text, data: ctx.asks.data(id, i) }]);
      const asked = { address: ctx.address, userId: ctx.senderId, name: ctx.senderName };
      const answer = ctx.asks.wait(id, options, asked, timeoutMs, signal);
      const shown = await ctx.outbox.send(ctx.address, {
        text: question,
        format: 'markdown',
        keyboard,
      });
      if (!shown) {
        ctx.asks.cancel(id);
        await answer;
        throw new ToolError(NOT_SHOWN);
      }
      const chosen = await answer;
      return chosen === undefined ? NO_ANSWER : `The user chose: ${chosen}`;
    },
  });
}
