import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { ChatModel } from '../../src/core/ports.ts';
import type { ImageInput } from '../../src/core/types.ts';
import { createGeminiChatModel } from '../../src/providers/gemini.ts';
import { createGroqChatModel } from '../../src/providers/groq.ts';
import { createOpenAiChatModel } from '../../src/providers/openai.ts';
import {
  createVisionModel,
  DESCRIBE_SYSTEM_PROMPT,
  describeRequest,
  parseModelRef,
} from '../../src/providers/vision.ts';
import {
  FakeModel,
  imagesOf,
  lastUserText,
  type RecordedRequest,
  systemText,
} from '../fakes/model-server.ts';
import { testCatalog } from '../support/catalog.ts';

let fake: FakeModel;

beforeAll(async () => {
  fake = await FakeModel.start();
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const photo: ImageInput = { mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRgABAQ==' };
const screenshot: ImageInput = { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' };
const signal = () => new AbortController().signal;

function lastRequest(): RecordedRequest {
  const req = fake.chatRequests().at(-1);
  if (!req) throw new Error('no request recorded');
  return req;
}

// biome-ignore lint/suspicious/noExplicitAny: provider JSON from the fake's recorded bodies
type Json = any;

const dataUrlPart = (image: ImageInput) => ({
  type: 'image_url',
  image_url: { url: `data:${image.mimeType};base64,${image.data}` },
});

const wires: {
  provider: 'openai' | 'groq' | 'gemini';
  make(): ChatModel;
  /** The recorded user turn, in the provider's own shape. */
  userTurn(body: Json): Json;
  withImages(text: string, images: ImageInput[]): Json;
  plain(text: string): Json;
}[] = [
  {
    provider: 'openai',
    make: () =>
      createOpenAiChatModel({ baseUrl: `${fake.url}/v1`, model: 'gpt-test', timeoutMs: 5000 }),
    userTurn: (body) => body.messages[1],
    withImages: (text, images) => ({
      role: 'user',
      content: [{ type: 'text', text }, ...images.map(dataUrlPart)],
    }),
    plain: (text) => ({ role: 'user', content: text }),
  },
  {
    provider: 'groq',
    make: () => createGroqChatModel({ baseUrl: fake.url, model: 'llama-test', timeoutMs: 5000 }),
    userTurn: (body) => body.messages[1],
    withImages: (text, images) => ({
      role: 'user',
      content: [{ type: 'text', text }, ...images.map(dataUrlPart)],
    }),
    plain: (text) => ({ role: 'user', content: text }),
  },
  {
    provider: 'gemini',
    make: () => createGeminiChatModel({ baseUrl: fake.url, model: 'gemini-test', timeoutMs: 5000 }),
    userTurn: (body) => body.contents[0],
    withImages: (text, images) => ({
      role: 'user',
      parts: [{ text }, ...images.map((i) => ({ inlineData: i }))],
    }),
    plain: (text) => ({ role: 'user', parts: [{ text }] }),
  },
];

describe.each(wires)('$provider images on the wire', (wire) => {
  it('sends a message with images as text followed by the images', async () => {
    await wire.make().complete(
      {
        system: 'be brief',
        messages: [{ role: 'user', content: 'what is this?', images: [photo, screenshot] }],
      },
      { signal: signal() },
    );
    const req = lastRequest();
    expect(wire.userTurn(req.body)).toEqual(wire.withImages('what is this?', [photo, screenshot]));
    expect(imagesOf(req)).toEqual([photo, screenshot]);
    expect(lastUserText(req)).toBe('what is this?');
  });

  it('leaves a message without images as it was', async () => {
    await wire
      .make()
      .complete(
        { system: 'be brief', messages: [{ role: 'user', content: 'hello', images: [] }] },
        { signal: signal() },
      );
    const req = lastRequest();
    expect(wire.userTurn(req.body)).toEqual(wire.plain('hello'));
    expect(imagesOf(req)).toEqual([]);
  });
});

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
const env = (extra: Record<string, string>) =>
  parseConfig({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', ...extra });

describe('createVisionModel', () => {
  it.each([
    ['openai', { OPENAI_API_KEY: 'sk' }, 'gpt-4.1-mini'],
    ['gemini', { GEMINI_API_KEY: 'gm' }, 'gemini-2.5-flash'],
    ['groq', { GROQ_API_KEY: 'gsk' }, 'meta-llama/llama-4-scout-17b-16e-instruct'],
  ] as const)('defaults to an image-capable model of %s', (provider, keys, model) => {
    const vision = createVisionModel(env({ LLM_PROVIDER: provider, ...keys }), catalog);
    expect(vision?.info).toEqual({ provider, model, acceptsImages: true });
  });

  it('takes a bare VISION_MODEL for the chat provider', () => {
    const vision = createVisionModel(
      env({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'gpt-4o' }),
      catalog,
    );
    expect(vision?.info).toEqual({ provider: 'openai', model: 'gpt-4o', acceptsImages: true });
  });

  it('takes provider:model from another provider that has a key', () => {
    const vision = createVisionModel(
      env({ OPENAI_API_KEY: 'sk', GEMINI_API_KEY: 'gm', VISION_MODEL: 'gemini:gemini-2.5-pro' }),
      catalog,
    );
    expect(vision?.info).toEqual({
      provider: 'gemini',
      model: 'gemini-2.5-pro',
      acceptsImages: true,
    });
  });

  it('keeps a model the catalog does not know as image-capable, and says so', () => {
    const vision = createVisionModel(
      env({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'llava:13b' }),
      catalog,
    );
    expect(vision?.info).toEqual({ provider: 'openai', model: 'llava:13b', acceptsImages: false });
  });

  it('is undefined when its provider has no key or base URL', () => {
    expect(
      createVisionModel(env({ OPENAI_API_KEY: 'sk', VISION_MODEL: 'groq:some-model' }), catalog),
    ).toBeUndefined();
    expect(
      createVisionModel(env({ LLM_PROVIDER: 'groq', GROQ_BASE_URL: fake.url }), catalog),
    ).toBeDefined();
  });

  it('describes photos through the configured provider', async () => {
    fake.enqueue({ text: 'A page with the words: Haus, Baum.' });
    const vision = createVisionModel(
      env({ LLM_PROVIDER: 'groq', GROQ_BASE_URL: fake.url }),
      catalog,
    );
    if (!vision) throw new Error('expected a vision model');
    const response = await vision.complete(describeRequest([photo], 'my word list'), {
      signal: signal(),
    });
    expect(response.text).toBe('A page with the words: Haus, Baum.');
    const req = lastRequest();
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
