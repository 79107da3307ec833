import diagnostics from 'node:diagnostics_channel';
import type http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, ProviderError, ProviderTimeoutError } from '../../src/core/errors.ts';
import type { ChatModel, ChatRequest, ToolSpec } from '../../src/core/ports.ts';
import type { ChatMessage } from '../../src/core/types.ts';
import { createGeminiChatModel, toGeminiContents } from '../../src/providers/gemini.ts';
import { createGroqChatModel } from '../../src/providers/groq.ts';
import { createOpenAiChatModel } from '../../src/providers/openai.ts';
import {
  isCutConnection,
  mapBrokenResponse,
  retryAfterFromHeaders,
} from '../../src/providers/response-errors.ts';
import {
  FakeModel,
  lastUserText,
  type RecordedRequest,
  systemText,
} from '../fakes/model-server.ts';

let fake: FakeModel;

beforeAll(async () => {
  fake = await FakeModel.start();
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'The weather forecast for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city'],
  },
};

// biome-ignore lint/suspicious/noExplicitAny: provider JSON from the fake's recorded bodies
type Json = any;

interface Adapter {
  provider: 'openai' | 'groq' | 'gemini';
  path: RegExp;
  make(timeoutMs?: number): ChatModel;
  /** The tool declarations of a request body, normalised to ToolSpec. */
  toolsOf(body: Json): ToolSpec[];
  /** Asserts that the body carries the tool call and its result in the provider's format. */
  expectToolTurn(body: Json, call: { id: string; name: string }, result: string): void;
  /** Whether a chat call goes out through node:http (httpFetch) or the built-in fetch. */
  viaNodeHttp: boolean;
}

const openAiTools = (body: Json): ToolSpec[] =>
  (body.tools ?? []).map((t: Json) => {
    expect(t.type).toBe('function');
    return t.function;
  });

const expectOpenAiToolTurn: Adapter['expectToolTurn'] = (body, call, result) => {
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
};

const adapters: Adapter[] = [
  {
    provider: 'openai',
    path: /^\/v1\/chat\/completions$/,
    make: (timeoutMs = 5000) =>
      createOpenAiChatModel({
        apiKey: 'test',
        baseUrl: `${fake.url}/v1`,
        model: 'gpt-test',
        timeoutMs,
      }),
    toolsOf: openAiTools,
    expectToolTurn: expectOpenAiToolTurn,
    viaNodeHttp: true,
  },
  {
    provider: 'groq',
    path: /^\/openai\/v1\/chat\/completions$/,
    make: (timeoutMs = 5000) =>
      createGroqChatModel({ apiKey: 'test', baseUrl: fake.url, model: 'llama-test', timeoutMs }),
    toolsOf: openAiTools,
    expectToolTurn: expectOpenAiToolTurn,
    viaNodeHttp: true,
  },
  {
    provider: 'gemini',
    path: /^\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse$/,
    make: (timeoutMs = 5000) =>
      createGeminiChatModel({
        apiKey: 'test',
        baseUrl: fake.url,
        model: 'gemini-test',
        timeoutMs,
      }),
    toolsOf: (body) => {
      expect(body.tools).toHaveLength(1);
      return body.tools[0].functionDeclarations.map((d: Json) => ({
        name: d.name,
        description: d.description,
        parameters: d.parametersJsonSchema,
      }));
    },
    expectToolTurn: (body, call, result) => {
      expect(body.contents.map((c: Json) => c.role)).toEqual(['user', 'model', 'user']);
      const [, model, user] = body.contents;
      expect(model.parts).toEqual([
        { functionCall: { name: call.name, args: { city: 'Paris', days: 3 } } },
      ]);
      expect(user.parts).toEqual([{ functionResponse: { name: call.name, response: { result } } }]);
    },
    viaNodeHttp: false,
  },
];

const ask = (text: string, tools?: ToolSpec[]): ChatRequest => ({
  system: 'be brief',
  messages: [{ role: 'user', content: text }],
  ...(tools ? { tools } : {}),
});

const signal = () => new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe.each(adapters)('$provider adapter', (adapter) => {
  const lastRequest = (): RecordedRequest => {
    const req = fake.chatRequests().at(-1);
    if (!req) throw new Error('no request recorded');
    return req;
  };

  it('names its provider and is text-only unless told otherwise', () => {
    const model = adapter.make();
    expect(model.info.provider).toBe(adapter.provider);
    expect(model.info.acceptsImages).toBe(false);
  });

  it('streams a text answer with usage', async () => {
    const text = 'one two three four five six seven';
    fake.enqueue({ text, usage: { input: 21, cached: 8, output: 7 }, chunks: 4 });
    const deltas: string[] = [];
    const viaNodeHttp: string[] = [];
    const onRequest = (message: unknown) =>
      viaNodeHttp.push((message as { request: http.ClientRequest }).request.path);
    diagnostics.subscribe('http.client.request.start', onRequest);
    const response = await adapter
      .make()
      .complete(ask('hello'), { signal: signal(), onText: (d) => deltas.push(d) })
      .finally(() => diagnostics.unsubscribe('http.client.request.start', onRequest));

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(response).toEqual({
      text,
      toolCalls: [],
      usage: { inputTokens: 21, cachedInputTokens: 8, outputTokens: 7 },
    });
    const req = lastRequest();
    expect(req.provider).toBe(adapter.provider);
    expect(req.path).toMatch(adapter.path);
    expect(req.stream).toBe(true);
    expect(systemText(req)).toBe('be brief');
    expect(lastUserText(req)).toBe('hello');
    expect(viaNodeHttp.some((p) => adapter.path.test(p))).toBe(adapter.viaNodeHttp);
  });

  it('sends tools, returns a tool call, and sends its result back', async () => {
    fake.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
      usage: { input: 30, output: 9 },
    });
    const model = adapter.make();
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

  it.each([
    [503, true],
    [429, true],
    [400, false],
  ])('maps HTTP %i to a ProviderError (transient %s)', async (status, transient) => {
    fake.enqueue({ status });
    const error = await failure(adapter.make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: adapter.provider, status, transient });
  });

  it('takes a stream that ends before its finish reason for a transient error, not an answer', async () => {
    fake.enqueue({ text: 'one two three four five six', chunks: 6, truncateAfter: 2 });
    const deltas: string[] = [];
    const error = await failure(
      adapter.make().complete(ask('x'), { signal: signal(), onText: (d) => deltas.push(d) }),
    );
    expect(deltas.join('')).toBe('one two ');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: adapter.provider, transient: true });
    expect((error as Error).message).toMatch(/broke off/);
  });

  it.each([
    ['a data line that is not JSON', 'sse'],
    ['a body that is neither JSON nor events', 'body'],
  ] as const)('takes a 200 with %s for a transient error', async (_name, malformed) => {
    fake.enqueue({ text: 'some words', malformed });
    const error = await failure(adapter.make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: adapter.provider, transient: true });
  });

  it.each([0, 2])(
    'maps a connection reset after %i content chunks to a transient ProviderError',
    async (chunks) => {
      fake.enqueue({ text: 'one two three four five six', chunks: 6, resetAfter: chunks });
      const deltas: string[] = [];
      const error = await failure(
        adapter.make().complete(ask('x'), { signal: signal(), onText: (d) => deltas.push(d) }),
      );
      expect(deltas.join('')).toBe(['', 'one ', 'one two '][chunks]);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ provider: adapter.provider, transient: true });
      expect((error as Error).message).toMatch(/connection broke mid-answer/);
    },
  );

  it('maps a dropped connection to a transient ProviderError', async () => {
    fake.enqueue({ drop: true });
    const error = await failure(adapter.make().complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ transient: true, status: undefined });
  });

  it('carries the wait a 429 asks for', async () => {
    fake.enqueue({ status: 429, retryAfter: 7 });
    const error = await failure(adapter.make().complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ status: 429, transient: true, retryAfterMs: 7000 });
  });

  it('leaves the wait unset when the provider names none', async () => {
    fake.enqueue({ status: 503 });
    const error = await failure(adapter.make().complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ status: 503, retryAfterMs: undefined });
  });

  it('maps an unreachable host to a transient ProviderError', async () => {
    const dead = await FakeModel.start();
    const url = dead.url;
    await dead.stop();
    const model =
      adapter.provider === 'openai'
        ? createOpenAiChatModel({ baseUrl: `${url}/v1`, model: 'm', timeoutMs: 5000 })
        : adapter.provider === 'groq'
          ? createGroqChatModel({ baseUrl: url, model: 'm', timeoutMs: 5000 })
          : createGeminiChatModel({ baseUrl: url, model: 'm', timeoutMs: 5000 });
    const error = await failure(model.complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ transient: true, status: undefined });
  });

  it('aborts a hanging stream when the signal fires', async () => {
    fake.enqueue({ text: 'never finished', hang: true });
    const controller = new AbortController();
    const call = failure(adapter.make().complete(ask('wait'), { signal: controller.signal }));
    await fake.waitForRequest(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    expect((await fake.waitForAbort()).provider).toBe(adapter.provider);
  });

  it('aborts while waiting for the first byte', async () => {
    fake.enqueue({ text: 'late', delayMs: 60_000 });
    const controller = new AbortController();
    const call = failure(adapter.make().complete(ask('wait'), { signal: controller.signal }));
    await fake.waitForRequest(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedError);
    await fake.waitForAbort();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(adapter.make().complete(ask('x'), { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
  });

  it('gives up on a stream that stops making progress', async () => {
    fake.enqueue({ text: 'stalls after the first chunk', hang: true });
    const started = Date.now();
    const error = await failure(adapter.make(200).complete(ask('x'), { signal: signal() }));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ provider: adapter.provider, transient: true });
    expect((error as Error).message).toMatch(/no progress for 200 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
    await fake.waitForAbort();
  });

  it('gives up when no byte arrives in time', async () => {
    fake.enqueue({ text: 'late', delayMs: 60_000 });
    const error = await failure(adapter.make(150).complete(ask('x'), { signal: signal() }));
    expect(error).toMatchObject({ provider: adapter.provider, transient: true });
    await fake.waitForAbort();
  });

  it('keeps a slow stream that makes progress', async () => {
    fake.enqueue({ text: 'a b c d e f', chunks: 6, chunkDelayMs: 80 });
    const response = await adapter.make(200).complete(ask('x'), { signal: signal() });
    expect(response.text).toBe('a b c d e f');
  });
});

describe('gemini specifics', () => {
  it('keeps Gemini function-call ids and mixes text with calls', async () => {
    fake.enqueue({
      text: 'Let me check.',
      toolCalls: [
        { id: 'fc-1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'fc-2', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    });
    const model = createGeminiChatModel({
      baseUrl: fake.url,
      model: 'gemini-test',
      timeoutMs: 5000,
    });
    const first = await model.complete(ask('two cities', [weatherTool]), { signal: signal() });
    expect(first.text).toBe('Let me check.');
    expect(first.toolCalls).toEqual([
      { id: 'fc-1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'fc-2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);

    fake.enqueue({ text: 'Both fine.' });
    await model.complete(
      {
        system: 'be brief',
        messages: [
          { role: 'user', content: 'two cities' },
          { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
          { role: 'tool', content: 'cold', toolCallId: 'fc-1' },
          { role: 'tool', content: 'warm', toolCallId: 'fc-2' },
        ],
      },
      { signal: signal() },
    );
    const body = fake.chatRequests().at(-1)?.body;
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'two cities' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me check.' },
          { functionCall: { id: 'fc-1', name: 'get_weather', args: { city: 'Oslo' } } },
          { functionCall: { id: 'fc-2', name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc-1', name: 'get_weather', response: { result: 'cold' } } },
          { functionResponse: { id: 'fc-2', name: 'get_weather', response: { result: 'warm' } } },
        ],
      },
    ]);
    expect(body.tools).toBeUndefined();
  });

  it('merges same-role turns and drops empty ones', () => {
    expect(
      toGeminiContents([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: 'c' },
        { role: 'tool', content: 'orphan', toolCallId: 'x' },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'c' }] },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'x', name: '', response: { result: 'orphan' } } }],
      },
    ]);
  });

  it('counts thinking tokens as output', async () => {
    fake.enqueue({ text: 'hi', usage: { input: 3, cached: 1, output: 2, thoughts: 40 } });
    const model = createGeminiChatModel({
      baseUrl: fake.url,
      model: 'gemini-test',
      timeoutMs: 5000,
    });
    const response = await model.complete(ask('x'), { signal: signal() });
    expect(response.usage).toEqual({ inputTokens: 3, cachedInputTokens: 1, outputTokens: 42 });
  });
});

describe('a connection cut mid-answer', () => {
  const premature = Object.assign(new Error('Premature close'), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
  });
  const undiciCut = new TypeError('terminated', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

  it('is recognized however the stack reports it', () => {
    for (const error of [premature, undiciCut, reset]) expect(isCutConnection(error)).toBe(true);
    const ours = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    for (const error of [ours, new SyntaxError('Unexpected token'), new Error('boom')])
      expect(isCutConnection(error)).toBe(false);
  });

  it('becomes a transient ProviderError naming the code', () => {
    expect(mapBrokenResponse('openai', undiciCut)).toMatchObject({
      transient: true,
      message: 'openai connection broke mid-answer: terminated (UND_ERR_SOCKET)',
    });
    expect(mapBrokenResponse('groq', reset)?.message).toBe(
      'groq connection broke mid-answer: aborted (ECONNRESET)',
    );
  });
});

describe('Retry-After', () => {
  it('reads retry-after-ms first, then Retry-After in seconds, and ignores dates', () => {
    const read = (init: Record<string, string>) => retryAfterFromHeaders(new Headers(init));
    expect(read({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(read({ 'retry-after': '1.5' })).toBe(1500);
    expect(read({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' })).toBeUndefined();
    expect(read({ 'retry-after': '' })).toBeUndefined();
    expect(read({})).toBeUndefined();
  });
});
