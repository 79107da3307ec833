/**
 * A group answer cut off mid-stream by a shutdown that does not wait for it (the grace
 * period runs out), then replayed on the next start while Telegram fails an edit: the
 * partial message becomes the answer, and the answer is never sent twice (SPEC §11, §12).
 */
import { describe, expect, it } from 'vitest';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const GROUP = -100654;

describe('a group stream under faults', () => {
  it('turns the partial message into the answer after an interrupted run, once', async () => {
    await h.start({}, { app: { shutdownGraceMs: 100 } });
    h.model.enqueue({ text: 'Thinking ', trickle: true, chunkDelayMs: 50 });
    h.tg.text({
      userId: ALLOWED_USER,
      chatId: GROUP,
      chatType: 'supergroup',
      text: '@satchel_test_bot plan my week',
    });
    const partial = await h.tg.waitForCall('sendMessage', (c) => c.params.chat_id === GROUP);

    h.model.enqueue({ text: 'Monday: ferns. Tuesday: books.' });
    h.tg.fail('editMessageText', { status: 502 }, 1);
    await h.restart();
    await settled(h, 1);

    expect(h.tg.texts(GROUP)).toHaveLength(1);
    const edits = h.tg.calls('editMessageText').filter((c) => !c.failed);
    expect(edits.at(-1)?.params).toMatchObject({
      chat_id: GROUP,
      message_id: partial.result.message_id,
      text: 'Monday: ferns. Tuesday: books.',
    });
    expect(h.model.chatRequests()).toHaveLength(2);
  });
});
