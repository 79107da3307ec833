import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { ImageInput } from '../../src/core/types.ts';
import {
  createVisionModel,
  DESCRIBE_SYSTEM_PROMPT,
  describeRequest,
  parseModelRef,
} from '../../src/providers/vision.ts';
import { imagesOf, lastUserText, systemText } from '../fakes/model-server.ts';
import { testCatalog } from '../support/catalog.ts';
import { useFakeModel } from '../support/fake-model.ts';

const fake = useFakeModel();

const photo: ImageInput = { mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRgABAQ==' };
const screenshot: ImageInput = { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' };
const signal = () => new AbortController().signal;

describe('parseModelRef', () => {
  it('reads provider:model, and a bare name for the given provider', () => {
    expect(parseModelRef('gemini:gemini-2.5-pro', 'openai')).toEqual({
      provider: 'gemini',
      model: 'gemini-2.5-pro',
    });
    expect(parseModelRef('groq:meta-llama/llama-4-scout-17b-16e-instruct', 'openai')).toEqual({
      provider: 'groq',
      model: 'meta-llama/llama-4-scout-17b-16e-instruct',
    });
    expect(parseModelRef('gpt-4o', 'openai')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    // A colon that does not follow a provider name belongs to the model.
    expect(parseModelRef('llava:13b', 'openai')).toEqual({
      provider: 'openai',
      model: 'llava:13b',
    });
  });
});

// gpt-4o and gemini-2.5-pro see images because the owner's catalog says so.
const catalog = testCatalog();
/** The vision model of a configuration with these variables. */
const visionOf = (vars: Record<string, string>) =>
  createVisionModel(parseConfig({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', ...vars }), catalog);

describe('createVisionModel', () => {
  it.each([
    ['openai', { OPENAI_API_KEY: 'sk' }, 'gpt-4.1-mini'],
    ['gemini', { GEMINI_API_KEY: 'gm' }, 'gemini-2.5-flash'],
    ['groq', { GROQ_API_KEY: 'gsk' }, 'meta-llama/llama-4-scout-17b-16e-instruct'],
  ] as const)('defaults to an image-capable model of %s', (provider, keys, model) => {
    const vision = visionOf({ LLM_PROVIDER: provider, ...keys });
    expect(vision?.info).toEqual({ provider, model, acceptsImages: true });
  });

  it('takes a bare VISION_MODEL for the chat provider', () => {
    const vision = visionOf({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'gpt-4o' });
    expect(vision?.info).toEqual({ provider: 'openai', model: 'gpt-4o', acceptsImages: true });
  });

  it('takes provider:model from another provider that has a key', () => {
    const vision = visionOf({
      OPENAI_API_KEY: 'sk',
      GEMINI_API_KEY: 'gm',
      VISION_MODEL: 'gemini:gemini-2.5-pro',
    });
    expect(vision?.info).toEqual({
      provider: 'gemini',
      model: 'gemini-2.5-pro',
      acceptsImages: true,
    });
  });

  it('keeps a model the catalog does not know as image-capable, and says so', () => {
    const vision = visionOf({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'llava:13b' });
    expect(vision?.info).toEqual({ provider: 'openai', model: 'llava:13b', acceptsImages: false });
  });

  it('is undefined when its provider has no key or base URL', () => {
    expect(visionOf({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'groq:some-model' })).toBeUndefined();
    expect(visionOf({ LLM_PROVIDER: 'groq', GROQ_BASE_URL: fake.url })).toBeDefined();
  });

  it('describes photos through the configured provider', async () => {
    fake.enqueue({ text: 'A page with the words: Haus, Baum.' });
    const vision = visionOf({ LLM_PROVIDER: 'groq', GROQ_BASE_URL: fake.url });
    if (!vision) throw new Error('expected a vision model');
    const response = await vision.complete(describeRequest([photo], 'my word list'), {
      signal: signal(),
    });
    expect(response.text).toBe('A page with the words: Haus, Baum.');
    const req = fake.chatRequests().at(-1)!;
    expect(req).toMatchObject({
      provider: 'groq',
      model: 'meta-llama/llama-4-scout-17b-16e-instruct',
    });
    expect(imagesOf(req)).toEqual([photo]);
    expect(systemText(req)).toBe(DESCRIBE_SYSTEM_PROMPT);
    expect(lastUserText(req)).toContain('my word list');
  });
});

describe('describeRequest', () => {
  it('asks for a faithful description with visible text transcribed verbatim', () => {
    const request = describeRequest([photo, screenshot], '  ');
    expect(request.system).toMatch(/verbatim/);
    expect(request.tools).toBeUndefined();
    expect(request.messages).toEqual([
      { role: 'user', content: 'Describe these 2 images.', images: [photo, screenshot] },
    ]);
  });

  it('passes the caption along', () => {
    const [message] = describeRequest([photo], 'what does the sign say?').messages;
    expect(message?.content).toBe(
      'Describe this image. The user sent it with this caption:\nwhat does the sign say?',
    );
  });
});
