/**
 * The provider contract: one suite of cases, run against every chat adapter (openai, groq,
 * gemini) over the fake model server speaking its wire. Each case states what the agent relies
 * on: a streamed answer and its usage (cached tokens too), a tool round, images in the
 * request, and the ProviderError of each failure the agent's retry acts on (a connection
 * reset mid-stream, a 429 and its wait, a stall) or the owner must fix (a refused key). A provider's file plugs in its adapter and
 * how its wire writes tools, tool results and images; what only one provider does stays there.
 */
import diagnostics from 'node:diagnostics_channel';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { AbortedError, ProviderError, ProviderTimeoutError } from '../../src/core/errors.ts';
import type { ChatModel, ChatRequest, ToolSpec } from '../../src/core/ports.ts';
import type { ChatMessage, ImageInput } from '../../src/core/types.ts';
import {
  type FakeModel,
  imagesOf,
  lastUserText,
  type RecordedRequest,
  systemText,
} from '../fakes/model-server.ts';
import { refusingRoot } from '../support/dead-hosts.ts';

// biome-ignore lint/suspicious/noExplicitAny: provider JSON from the fake's recorded bodies
export type Json = any;

/** How a provider's requests look on its wire: tools, tool results and user turns. */
export interface Wire {
  /** The tool declarations of a request body, normalised to ToolSpec. */
  toolsOf(body: Json): ToolSpec[];
  /** Asserts that the body carries the tool call and its result in the provider's format. */
  expectToolTurn(body: Json, call: { id: string; name: string }, result: string): void;
  /** The request's (first) user turn, in the provider's own shape. */
  userTurn(body: Json): Json;
  /** A user turn of text followed by images, as the provider's wire writes it. */
  withImages(text: string, images: ImageInput[]): Json;
  /** A user turn of text alone. */
  plain(text: string): Json;
}

export interface ProviderUnderTest extends Wire {
  provider: 'openai' | 'groq' | 'gemini';
  /** The path of a chat call on the fake server. */
  path: RegExp;
  /** The adapter's chat model against the server at `url`. */
  make(url: string, timeoutMs: number): ChatModel;
  /** Whether a chat call goes out through node:http (httpFetch) or the built-in fetch. */
  viaNodeHttp: boolean;
  /** The variable that holds its key: a refused key names it. */
  keyVariable: string;
}

/** The OpenAI chat-completions wire, which Groq speaks too. */
export const openAiWire: Wire = {
  toolsOf: (body) =>
    (body.tools ?? []).map((t: Json) => {
      expect(t.type).toBe('function');
      return t.function;
    }),
  expectToolTurn: (body, call, result) => {
    const assistant = body.messages.find((m: Json) => m.role === 'assistant');
    expect(assistant.tool_calls).toEqual([
      {
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: expect.any(String) },
      },
    ]);
    const tool = body.messages.find((m: Json) => m.role === 'tool');
    expect(tool).toEqual({ role: 'tool', content: result, tool_call_id: call.id });
    expect(body.messages.map((m: Json) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  },
  userTurn: (body) => body.messages[1],
  withImages: (text, images) => ({
    role: 'user',
    content: [
      { type: 'text', text },
      ...images.map((image) => ({
        type: 'image_url',
        image_url: { url: `data:${image.mimeType};base64,${image.data}` },
      })),
    ],
  }),
  plain: (text) => ({ role: 'user', content: text }),
};

export const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'The weather forecast for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city'],
  },
};

export const ask = (text: string, tools?: ToolSpec[]): ChatRequest => ({
  system: 'be brief',
  messages: [{ role: 'user', content: text }],
  ...(tools ? { tools } : {}),
});

export const signal = () => new AbortController().signal;

/** What the promise rejects with; a test fails if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

const photo: ImageInput = { mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRgABAQ==' };
const screenshot: ImageInput = { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' };

/** The contract's cases for one adapter, over `fake` (see test/support/fake-model.ts). */
export function providerContract(fake: FakeModel, adapter: ProviderUnderTest): void {
  const make = (timeoutMs = 5000) => adapter.make(fake.url, timeoutMs);
  const lastRequest = (): RecordedRequest => {
    const req = fake.chatRequests().at(-1);
    if (!req) throw new Error('no request recorded');
    return req;
  };

  describe(`${adapter.provider}: the provider contract`, () => {
    answers(adapter, make, lastRequest, fake);
    fails(adapter, make, fake);
    gives(adapter, make, fake);
  });
}

type Make = (timeoutMs?: number) => ChatModel;

/** What a call sends and what its answer carries: text, usage, tool calls, images. */
function answers(
  adapter: ProviderUnderTest,
  make: Make,
  lastRequest: () => RecordedRequest,
  fake: FakeModel,
) {
  it('names its provider and is text-only unless told otherwise', () => {
    expect(make().info).toMatchObject({ provider: adapter.provider, acceptsImages: false });
  });

  it('streams a text answer with usage', async () => {
    const text = 'one two three four five six seven';
    fake.enqueue({ text, usage: { input: 21, output: 7 }, chunks: 4 });
    const deltas: string[] = [];
    const viaNodeHttp: string[] = [];
    const onRequest = (message: unknown) =>
      viaNodeHttp.push((message as { request: http.ClientRequest }).request.path);
    diagnostics.subscribe('http.client.request.start', onRequest);
    const response = await make()
      .complete(ask('hello'), { signal: signal(), onText: (d) => deltas.push(d) })
      .finally(() => diagnostics.unsubscribe('http.client.request.start', onRequest));

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(response).toEqual({
      text,
      toolCalls: [],
      usage: { inputTokens: 21, cachedInputTokens: 0, outputTokens: 7 },
    });
    const req = lastRequest();
    expect(req).toMatchObject({ provider: adapter.provider, stream: true });
    expect(req.path).toMatch(adapter.path);
    expect(systemText(req)).toBe('be brief');
    expect(lastUserText(req)).toBe('hello');
    expect(viaNodeHttp.some((p) => adapter.path.test(p))).toBe(adapter.viaNodeHttp);
  });

  it('reports the cached part of the input', async () => {
    fake.enqueue({ text: 'hi', usage: { input: 21, cached: 8, output: 7 } });
    const response = await make().complete(ask('hello'), { signal: signal() });
    expect(response.usage).toEqual({ inputTokens: 21, cachedInputTokens: 8, outputTokens: 7 });
  });

  it('sends tools, returns a tool call, and sends its result back', async () => {
    fake.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
      usage: { input: 30, output: 9 },
    });
    const model = make();
    const first = await model.complete(ask('weather in Paris?', [weatherTool]), {
      signal: signal(),
    });

    expect(adapter.toolsOf(lastRequest().body)).toEqual([weatherTool]);
    expect(first.text).toBe('');
    expect(first.usage).toEqual({ inputTokens: 30, cachedInputTokens: 0, outputTokens: 9 });
    expect(first.toolCalls).toHaveLength(1);
    const call = first.toolCalls[0]!;
    expect(call.name).toBe('get_weather');
    expect(call.id).not.toBe('');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris', days: 3 });

    fake.enqueue({ text: 'Sunny, 21°C.' });
    const result = '{"forecast":"sunny","celsius":21}';
    const history: ChatMessage[] = [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', content: result, toolCallId: call.id },
    ];
    const second = await model.complete(
      { system: 'be brief', messages: history, tools: [weatherTool] },
      { signal: signal() },
    );
    expect(second.text).toBe('Sunny, 21°C.');
    expect(second.toolCalls).toEqual([]);
    adapter.expectToolTurn(lastRequest().body, call, result);
  });

  it('sends a message with images as text followed by the images', async () => {
    await make().complete(
      {
        system: 'be brief',
        messages: [{ role: 'user', content: 'what is this?', images: [photo, screenshot] }],
      },
      { signal: signal() },
    );
    const req = lastRequest();
    expect(adapter.userTurn(req.body)).toEqual(
      adapter.withImages('what is this?', [photo, screenshot]),
    );
    expect(imagesOf(req)).toEqual([photo, screenshot]);
    expect(lastUserText(req)).toBe('what is this?');
  });

  it('leaves a message without images as it was', async () => {
    await make().complete(
      { system: 'be brief', messages: [{ role: 'user', content: 'hello', images: [] }] },
      { signal: signal() },
    );
    const req = lastRequest();
    expect(adapter.userTurn(req.body)).toEqual(adapter.plain('hello'));
    expect(imagesOf(req)).toEqual([]);
  });
}

/** How each failure reaches the agent: a ProviderError, transient or not, and its wait. */
function fails(adapter: ProviderUnderTest, make: Make, fake: FakeModel) {
  const { provider } = adapter;

  it.each([
    [503, true],
    [429, true],
    [400, false],
  ])('maps HTTP %i to a ProviderError (transient %s)', async (status, transient) => {
    fake.enqueue({ status });
    const error = await failure(make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider, status, transient });
  });

  it('tells the owner (log) and the user which key to check when the key is refused', async () => {
    fake.requireKey(provider, 'the-right-key');
    const error = (await failure(
      make().complete(ask('hi'), { signal: signal() }),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.transient).toBe(false);
    expect(error.message).toContain(`check ${adapter.keyVariable}: ${provider} refused it`);
    expect(error.hint).toMatch(new RegExp(`^check ${adapter.keyVariable}:`));
    expect(error.userMessage).toContain(`the owner should check ${adapter.keyVariable}`);
  });

  it('carries the wait a 429 asks for', async () => {
    fake.enqueue({ status: 429, retryAfter: 7 });
    const error = await failure(make().complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ status: 429, transient: true, retryAfterMs: 7000 });
  });

  it('leaves the wait unset when the provider names none', async () => {
    fake.enqueue({ status: 503 });
    const error = await failure(make().complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ status: 503, retryAfterMs: undefined });
  });

  it('takes a stream that ends before its finish reason for a transient error, not an answer', async () => {
    fake.enqueue({ text: 'one two three four five six', chunks: 6, truncateAfter: 2 });
    const deltas: string[] = [];
    const error = await failure(
      make().complete(ask('x'), { signal: signal(), onText: (d) => deltas.push(d) }),
    );
    expect(deltas.join('')).toBe('one two ');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider, transient: true });
    expect((error as Error).message).toMatch(/broke off/);
  });

  it.each([
    ['a data line that is not JSON', 'sse'],
    ['a body that is neither JSON nor events', 'body'],
  ] as const)('takes a 200 with %s for a transient error', async (_name, malformed) => {
    fake.enqueue({ text: 'some words', malformed });
    const error = await failure(make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider, transient: true });
  });

  it.each([0, 2])(
    'maps a connection reset after %i content chunks to a transient ProviderError',
    async (chunks) => {
      fake.enqueue({ text: 'one two three four five six', chunks: 6, resetAfter: chunks });
      const deltas: string[] = [];
      const error = await failure(
        make().complete(ask('x'), { signal: signal(), onText: (d) => deltas.push(d) }),
      );
      expect(deltas.join('')).toBe(['', 'one ', 'one two '][chunks]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider, transient: true });
      expect((error as Error).message).toMatch(/connection broke mid-answer/);
    },
  );

  it('maps a dropped connection to a transient ProviderError', async () => {
    fake.enqueue({ drop: true });
    const error = await failure(make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ transient: true, status: undefined });
  });

  it('maps an unreachable host to a transient ProviderError', async () => {
    const model = adapter.make(await refusingRoot(), 5000);
    const error = await failure(model.complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ transient: true, status: undefined });
  });
}

/** When a call stops: the turn's signal, or a provider that stops making progress. */
function gives(adapter: ProviderUnderTest, make: Make, fake: FakeModel) {
  const { provider } = adapter;

  it('aborts a hanging stream when the signal fires', async () => {
    fake.enqueue({ text: 'never finished', hang: true });
    const controller = new AbortController();
    const call = failure(make().complete(ask('wait'), { signal: controller.signal }));
    await fake.waitForRequest(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    expect((await fake.waitForAbort()).provider).toBe(provider);
  });

  it('aborts while waiting for the first byte', async () => {
    fake.enqueue({ text: 'late', delayMs: 60_000 });
    const controller = new AbortController();
    const call = failure(make().complete(ask('wait'), { signal: controller.signal }));
    await fake.waitForRequest(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    await fake.waitForAbort();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(make().complete(ask('x'), { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
  });

  it('gives up on a stream that stops making progress', async () => {
    fake.enqueue({ text: 'stalls after the first chunk', hang: true });
    const error = await failure(make(200).complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ provider, transient: true });
    expect((error as Error).message).toMatch(/no progress for 200 ms/);
    await fake.waitForAbort();
  });

  it('gives up when no byte arrives in time', async () => {
    fake.enqueue({ text: 'late', delayMs: 60_000 });
    // Long enough that the request reaches the fake first, also on a busy machine: the fake
    // then sees it aborted.
    const error = await failure(make(1000).complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ provider, transient: true });
    await fake.waitForAbort();
  });

  it('keeps a slow stream that makes progress', async () => {
    // 1.8 s in all, longer than the 1 s limit, with a chunk every 0.3 s: only progress keeps it.
    fake.enqueue({ text: 'a b c d e f', chunks: 6, chunkDelayMs: 300 });
    const response = await make(1000).complete(ask('x'), { signal: signal() });
    expect(response.text).toBe('a b c d e f');
  });
}
