import { ALLOWED_USER, type Harness, settled } from './harness.ts';

/**
 * The allowed user binds their private chat to `pack` with `/pack` and its button; `done` is
 * the number of updates handled before, and the two this takes are awaited.
 */
export async function pickPackByButton(h: Harness, pack: string, done = 0): Promise<void> {
  h.tg.text({ userId: ALLOWED_USER, text: '/pack' });
  await settled(h, done + 1);
  const picker = h.tg.calls('sendMessage').at(-1)!;
  h.tg.callback({
    userId: ALLOWED_USER,
    data: `pack:${pack}`,
    messageId: picker.result.message_id,
  });
  await settled(h, done + 2);
}
