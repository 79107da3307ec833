import type { ApiCall } from '../fakes/telegram-calls.ts';
import { ALLOWED_USER, type TestHarness } from './harness.ts';

/** Whether a Bot API call sends an approval question (it has an "Allow once" button). */
export const isApproval = (call: ApiCall): boolean =>
  Boolean(
    call.params.reply_markup?.inline_keyboard
      ?.flat()
      .some((b: { text: string }) => b.text === 'Allow once'),
  );

/**
 * Waits for the `nth` approval question Telegram received (1 = the first); returns it, its
 * button labels and a press of the button whose label starts with `label`, by `userId`.
 */
export async function approvalAsked(h: TestHarness, nth = 1) {
  const questions = await h.tg.waitForCalls('sendMessage', nth, isApproval);
  const question = questions[nth - 1]!;
  const buttons = question.params.reply_markup.inline_keyboard.flat() as {
    text: string;
    callback_data: string;
  }[];
  return {
    question,
    text: question.params.text as string,
    labels: buttons.map((b) => b.text),
    press: (label: string, userId = ALLOWED_USER, chatId?: number) =>
      h.tg.callback({
        userId,
        ...(chatId === undefined ? {} : { chatId }),
        messageId: question.result.message_id,
        data: buttons.find((b) => b.text.startsWith(label))!.callback_data,
      }),
  };
}
