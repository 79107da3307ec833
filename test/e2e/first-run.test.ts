import { describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../src/agent/retry.ts';
import { PROVIDER_UNAVAILABLE } from '../../src/core/errors.ts';
import { refusingRoot } from '../support/dead-hosts.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const noWait: RetryPolicy = { retries: 2, delayMs: () => 0 };

describe('errors the owner can act on', () => {
  it('a model key the provider refuses: the chat says so and points the owner at doctor, as code', async () => {
    await h.start({}, { beforeStart: (_tg, model) => model.requireKey('openai', 'sk-other') });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello?' });
    await settled(h, 1);
    // Rendered as an answer is: the command in backticks is code, not literal backticks.
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'The API key was refused by openai, so I cannot answer — the owner should check OPENAI_API_KEY and run <code>npx satchel doctor</code>.',
    ]);
    expect(h.tg.calls('sendMessage')[0]?.params.parse_mode).toBe('HTML');
    const [line] = h.logs('provider_error');
    expect(line).toMatchObject({ provider: 'openai', status: 401 });
    const err = line?.err as { hint?: string; message?: string };
    expect(err.hint).toMatch(/^check OPENAI_API_KEY: openai refused it/);
    // Refused keys are not retried: one call, no failover storm.
    expect(h.model.chatRequests()).toHaveLength(1);
  });

  it('a model provider that cannot be reached: the chat says it did not answer, not "something went wrong"', async () => {
    const root = await refusingRoot();
    await h.start({ OPENAI_BASE_URL: `${root}/v1` }, { app: { modelRetry: noWait } });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello?' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([PROVIDER_UNAVAILABLE]);
    expect(h.logs('provider_error').at(-1)?.err).toMatchObject({
      message: expect.stringMatching(/openai unreachable/),
    });
  });
});
