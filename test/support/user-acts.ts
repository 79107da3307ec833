import { ALLOWED_USER, type Harness } from './harness.ts';

/** Presses the button `data` on the last message the bot sent, as the allowed user. */
export function pressOnLast(h: Harness, data: string): void {
  const last = h.tg.calls('sendMessage').at(-1)!;
  h.tg.callback({ userId: ALLOWED_USER, data, messageId: last.result.message_id });
}

/** Where the allowed user writes in forum supergroup `chatId`: topic `threadId`, or General. */
export const inForum = (chatId: number, threadId?: number) => ({
  userId: ALLOWED_USER,
  chatId,
  chatType: 'supergroup' as const,
  isForum: true,
  ...(threadId === undefined ? {} : { threadId }),
});
