import { describe, expect, it } from 'vitest';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();

describe('errors the owner can act on', () => {
  it('a model key the provider refuses: the chat and the log name the variable to check', async () => {
    await h.start({}, { beforeStart: (_tg, model) => model.requireKey('openai', 'sk-other') });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello?' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      "Sorry, openai refused satchel's API key, so I cannot answer. The owner should check OPENAI_API_KEY.",
    ]);
    const [line] = h.logs('provider_error');
    expect(line).toMatchObject({ provider: 'openai', status: 401 });
    const err = line?.err as { hint?: string; message?: string };
    expect(err.hint).toMatch(/^check OPENAI_API_KEY: openai refused it/);
    // Refused keys are not retried: one call, no failover storm.
    expect(h.model.chatRequests()).toHaveLength(1);
  });
});
