import { describe, expect, it } from 'vitest';
import { MAX_MODEL_CALLS } from '../../src/agent/agent.ts';
import { ASK_TIMEOUT_MS, NO_ANSWER } from '../../src/tools/ask-user.ts';
import type { RecordedRequest } from '../fakes/model-server.ts';
import { fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const h = harnessPerTest();

/** Tool results the model received, in order (OpenAI format). */
function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

describe('the limits of one turn', () => {
  it('makes at most 20 model calls; the last is offered no tools and its text is the answer', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    // A model that would call tools forever, and answers only when it has none.
    h.model.setDefault((req) =>
      req.body.tools
        ? { toolCalls: [{ name: 'skill_view', arguments: { name: 'alpha_one' } }] }
        : { text: 'Stopping here.' },
    );
    h.say('loop please');
    await settled(h, 1);

    const requests = h.model.chatRequests();
    expect(MAX_MODEL_CALLS).toBe(20);
    expect(requests).toHaveLength(20);
    expect(requests.slice(0, 19).every((r) => Array.isArray(r.body.tools))).toBe(true);
    expect(requests[19]!.body.tools).toBeUndefined();
    expect(toolResults(requests[19]!)).toHaveLength(19);
    expect(h.tg.texts()).toEqual(['Stopping here.']);
  });

  it('gives up waiting for an ask_user press after 10 minutes and tells the model', async () => {
    const clock = new JumpClock();
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) }, { app: { clock } });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'ask_user', arguments: { question: 'Water?', options: ['Yes', 'No'] } },
        ],
      },
      { text: 'No answer, so I left it.' },
    );
    h.say('check the fern');
    await h.tg.waitForCall('sendMessage', (c) => Boolean(c.params.reply_markup));

    clock.advance(ASK_TIMEOUT_MS - 1000);
    expect(h.model.chatRequests()).toHaveLength(1);
    clock.advance(1000);
    await settled(h, 1);

    expect(ASK_TIMEOUT_MS).toBe(10 * 60 * 1000);
    expect(toolResults(h.model.chatRequests()[1]!)).toEqual([NO_ANSWER]);
    expect(h.tg.texts().at(-1)).toBe('No answer, so I left it.');
  });
});
