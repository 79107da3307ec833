import { describe, expect, it } from 'vitest';
import { createOfferedModels, LIST_TTL_MS } from '../../src/providers/offered-models.ts';
import type { Provider } from '../../src/providers/registry.ts';
import { createModelCatalog } from '../../src/usage/catalog.ts';
import { FakeClock } from '../support/fake-clock.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const config = {
  llm: { provider: 'openai' as const, model: 'gpt-4.1-mini' },
  providers: {
    openai: { apiKey: 'sk-x' },
    gemini: {},
    groq: {},
  },
} as never;

/** The offered models over a provider list the test controls (a function: it may fail). */
function rig(list: (provider: Provider) => string[]) {
  const clock = new FakeClock();
  const asked: Provider[] = [];
  const offered = createOfferedModels({
    config,
    catalog: createModelCatalog({ file: 'models.yaml', entries: {} }),
    list: async (provider) => {
      asked.push(provider);
      return list(provider);
    },
    clock,
    log: silent,
  });
  return { offered, clock, asked };
}

describe('the offered chat models', () => {
  it('lists the configured provider’s chat models, priced first, without speech models', async () => {
    const { offered, asked } = rig(() => [
      'zz-local',
      'gpt-4o-mini-tts',
      'gpt-4.1',
      'gpt-4.1-mini',
    ]);
    expect(await offered.offered()).toEqual([
      { ref: 'openai:gpt-4.1', price: { input: 2, output: 8 } },
      { ref: 'openai:gpt-4.1-mini', price: { input: 0.4, output: 1.6 } },
      { ref: 'openai:zz-local' },
    ]);
    // Only the provider with a key is asked.
    expect(asked).toEqual(['openai']);
  });

  it('asks again only when its list is older than LIST_TTL_MS', async () => {
    let names = ['gpt-4.1'];
    const { offered, clock, asked } = rig(() => names);
    await offered.offered();
    names = ['gpt-4.1', 'gpt-4o'];
    expect((await offered.offered()).map((m) => m.ref)).toEqual(['openai:gpt-4.1']);
    clock.advance(LIST_TTL_MS);
    expect((await offered.offered()).map((m) => m.ref)).toEqual([
      'openai:gpt-4.1',
      'openai:gpt-4o',
    ]);
    expect(asked).toHaveLength(2);
  });

  it('offers the catalog’s chat models of a provider whose list cannot be read', async () => {
    const { offered } = rig(() => {
      throw new Error('connection refused');
    });
    const refs = (await offered.offered()).map((m) => m.ref);
    expect(refs).toContain('openai:gpt-4.1');
    expect(refs.every((r) => r.startsWith('openai:'))).toBe(true);
    expect(refs).not.toContain('openai:gpt-4o-mini-transcribe');
  });
});
