import { describe, expect, it } from 'vitest';
import { createGeminiChatModel, toGeminiContents } from '../../src/providers/gemini.ts';
import { useFakeModel } from '../support/fake-model.ts';
import { ask, type Json, providerContract, signal, weatherTool } from './contract.ts';

const fake = useFakeModel();
const gemini = (url: string, timeoutMs = 5000) =>
  createGeminiChatModel({ apiKey: 'test', baseUrl: url, model: 'gemini-test', timeoutMs });

providerContract(fake, {
  provider: 'gemini',
  path: /^\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse$/,
  make: gemini,
  viaNodeHttp: false,
  keyVariable: 'GEMINI_API_KEY',
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
  userTurn: (body) => body.contents[0],
  withImages: (text, images) => ({
    role: 'user',
    parts: [{ text }, ...images.map((i) => ({ inlineData: i }))],
  }),
  plain: (text) => ({ role: 'user', parts: [{ text }] }),
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
    const model = gemini(fake.url);
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
    const response = await gemini(fake.url).complete(ask('x'), { signal: signal() });
    expect(response.usage).toEqual({ inputTokens: 3, cachedInputTokens: 1, outputTokens: 42 });
  });
});
