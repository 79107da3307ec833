import { GoogleGenAI } from '@google/genai';
import Groq from 'groq-sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFakeModel } from '../support/fake-model.ts';
import { lastUserText, SPEECH_OGG, systemText, userTexts } from './model-server.ts';

const fake = useFakeModel();
let openai: OpenAI;
beforeAll(() => {
  openai = new OpenAI({ apiKey: 'test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
});

describe('FakeModel via openai SDK', () => {
  it('answers a plain completion with the default echo and usage', async () => {
    const res = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'hello there' }] },
      ],
    });
    expect(res.choices[0]?.message.content).toBe('echo: hello there');
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

    const req = fake.chatRequests()[0]!;
    expect(req).toMatchObject({
      provider: 'openai',
      kind: 'chat',
      model: 'gpt-test',
      stream: false,
    });
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer test');
    expect(userTexts(req)).toEqual(['first', 'hello there']);
    expect(lastUserText(req)).toBe('hello there');
    expect(systemText(req)).toBe('be brief');
  });

  it('streams scripted text in several chunks with a final usage chunk', async () => {
    fake.enqueue({
      text: 'one two three four five six',
      usage: { input: 7, cached: 3, output: 4 },
    });
    const stream = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) pieces.push(piece);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.join('')).toBe('one two three four five six');
    expect(usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 4,
      total_tokens: 11,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    expect(fake.chatRequests()[0]?.stream).toBe(true);
  });

  it('streams a tool call that the SDK assembles from its chunks', async () => {
    fake.enqueue({
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
    });
    const stream = openai.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
        },
      ],
      stream_options: { include_usage: true },
    });
    const argDeltas: string[] = [];
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      if (call?.function?.arguments) argDeltas.push(call.function.arguments);
    }
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0]!;
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","days":3}' },
      },
    ]);
    expect(final.usage?.total_tokens).toBe(15);
  });

  it('returns a non-streamed tool call', async () => {
    fake.enqueue({ text: 'calling', toolCalls: [{ name: 'lookup', arguments: '{"q":1}' }] });
    const res = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'x' }],
    });
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'lookup',
      arguments: '{"q":1}',
    });
    expect(res.choices[0]?.message.content).toBe('calling');
  });

  it('serves a scripted 500 then succeeds', async () => {
    fake.enqueue({ status: 500 }, { text: 'recovered' });
    const ask = () =>
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    await expect(ask()).rejects.toMatchObject({ status: 500 });
    const res = await ask();
    expect(res.choices[0]?.message.content).toBe('recovered');
    expect(fake.chatRequests()).toHaveLength(2);
  });

  it('sends retry-after with a 429', async () => {
    fake.enqueue({ status: 429 });
    const err = await openai.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('1');
  });

  it('notices a client abort of a hanging request', async () => {
    fake.enqueue({ hang: true });
    const ac = new AbortController();
    const call = openai.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'wait' }] },
      { signal: ac.signal },
    );
    const req = await fake.waitForRequest(1);
    expect(req.aborted).toBe(false);
    ac.abort();
    await expect(call).rejects.toThrow();
    const aborted = await fake.waitForAbort();
    expect(aborted).toBe(req);
    expect(aborted.aborted).toBe(true);
  });

  it('notices a client abort of a stream that hangs after its first chunk', async () => {
    fake.enqueue({ text: 'a b c', hang: true, delayMs: 20 });
    const ac = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: ac.signal },
    );
    const it = stream[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    ac.abort();
    // the SDK ends the iteration (or throws) once aborted; either way no more chunks arrive
    const rest = await it.next().catch(() => ({ done: true }));
    expect(rest.done).toBe(true);
    expect((await fake.waitForAbort()).stream).toBe(true);
  });
});

describe('FakeModel model lists and title calls', () => {
  it('lists models only to a request with a key, as OpenAI does', async () => {
    const listed = await openai.models.list();
    expect(listed.data.map((m) => m.id)).toEqual(['gpt-4.1-mini', 'gpt-4.1', 'gpt-4o-mini']);
    expect((await fetch(`${fake.url}/v1/models`)).status).toBe(401);
  });

  it('answers a title call from its own queue, recorded apart from chat requests', async () => {
    fake.enqueue({ text: 'for the turn' });
    fake.enqueueTitle({ text: 'A title' });
    const titled = await openai.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Name this conversation in at most six words.' },
        { role: 'user', content: 'User: hi\n\nAssistant: hello' },
      ],
    });
    expect(titled.choices[0]?.message.content).toBe('A title');
    expect(fake.titleRequests()).toHaveLength(1);
    expect(fake.chatRequests()).toHaveLength(0);
    // Without a queued title: the owner's line.
    const again = await openai.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Name this conversation, please.' },
        { role: 'user', content: 'User: tomatoes in pots?\n\nAssistant: yes' },
      ],
    });
    expect(again.choices[0]?.message.content).toBe('tomatoes in pots?');
  });
});

describe('FakeModel text to speech via openai SDK', () => {
  it('speaks the OGG/Opus fixture and records the request', async () => {
    const response = await openai.audio.speech.create({
      model: 'gpt-4o-mini-tts',
      input: 'hello there',
      voice: 'alloy',
      response_format: 'opus',
    });
    expect(response.headers.get('content-type')).toBe('audio/ogg');
    const audio = Buffer.from(await response.arrayBuffer());
    expect(audio.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(audio.equals(SPEECH_OGG)).toBe(true);
    const [req] = fake.requests({ kind: 'speech' });
    expect(req).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini-tts',
      path: '/v1/audio/speech',
    });
    expect(req?.body).toEqual({
      model: 'gpt-4o-mini-tts',
      input: 'hello there',
      voice: 'alloy',
      response_format: 'opus',
    });
  });

  it('refuses a request without model, input or voice, and fails a scripted one', async () => {
    const body = { model: 'gpt-4o-mini-tts', input: 'hi', voice: 'alloy' };
    for (const missing of ['model', 'input', 'voice'] as const) {
      const { [missing]: _, ...rest } = body;
      const refused = openai.audio.speech.create(rest as typeof body);
      await expect(refused, missing).rejects.toMatchObject({
        status: 400,
        error: { param: missing, code: 'missing_required_parameter' },
      });
    }
    fake.enqueueSpeech({ status: 503 });
    await expect(openai.audio.speech.create(body)).rejects.toMatchObject({ status: 503 });
    expect((await openai.audio.speech.create(body)).ok).toBe(true);
  });
});

describe('FakeModel transcribing via the openai SDK', () => {
  const ogg = (name = 'voice.ogg') =>
    new File([new Uint8Array([1, 2, 3, 4])], name, { type: 'audio/ogg' });

  it("transcribes at /v1/audio/transcriptions with OpenAI's usage for each model", async () => {
    fake.enqueueTranscription({ text: 'one', duration: 2 });
    fake.enqueueTranscription({ text: 'two', duration: 2 });
    const mini = await openai.audio.transcriptions.create({
      model: 'gpt-4o-mini-transcribe',
      file: ogg(),
    });
    expect(mini).toMatchObject({ text: 'one', usage: { type: 'tokens' } });
    const whisper = await openai.audio.transcriptions.create({ model: 'whisper-1', file: ogg() });
    expect(whisper).toMatchObject({ text: 'two', usage: { type: 'duration', seconds: 2 } });
    const [req] = fake.requests({ provider: 'openai', kind: 'transcription' });
    expect(req?.path).toBe('/v1/audio/transcriptions');
    expect(req?.body.file).toMatchObject({ filename: 'voice.ogg', contentType: 'audio/ogg' });
  });

  it('refuses what OpenAI refuses: another model, a .oga name, verbose_json from gpt-4o', async () => {
    const refused = (body: {
      model: string;
      file: File;
      response_format?: 'json' | 'verbose_json';
    }) => openai.audio.transcriptions.create({ ...body, stream: false });
    await expect(refused({ model: 'gpt-4.1-mini', file: ogg() })).rejects.toMatchObject({
      status: 404,
      error: { code: 'model_not_found', param: 'model' },
    });
    await expect(
      refused({ model: 'gpt-4o-mini-transcribe', file: ogg('voice.oga') }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'file' } });
    await expect(
      refused({ model: 'gpt-4o-mini-transcribe', file: ogg(), response_format: 'verbose_json' }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'response_format' } });
    // A local Whisper server's own model names, once the test says it serves them.
    fake.setTranscriptionModels('openai', ['Systran/faster-whisper-small']);
    fake.enqueueTranscription({ text: 'local' });
    const local = await refused({ model: 'Systran/faster-whisper-small', file: ogg() });
    expect(local.text).toBe('local');
  });
});

describe('FakeModel via groq-sdk', () => {
  it('transcribes and records filename and model', async () => {
    const groq = new Groq({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    fake.enqueueTranscription({ text: 'hello from audio' });
    const audio = new File([new Uint8Array([1, 2, 3, 4, 5])], 'voice.ogg', { type: 'audio/ogg' });
    const res = await groq.audio.transcriptions.create({
      model: 'whisper-large-v3',
      file: audio,
      language: 'en',
      response_format: 'json',
    });
    expect(res.text).toBe('hello from audio');

    const [req] = fake.requests({ provider: 'groq', kind: 'transcription' });
    expect(req?.path).toBe('/openai/v1/audio/transcriptions');
    expect(req?.model).toBe('whisper-large-v3');
    expect(req?.body.fields).toMatchObject({ model: 'whisper-large-v3', language: 'en' });
    expect(req?.body.file).toMatchObject({ filename: 'voice.ogg', size: 5 });
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it('refuses audio named in a format Whisper does not take, as Groq does', async () => {
    const groq = new Groq({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    for (const name of ['voice.oga', 'voice.weba', 'voice.aac', 'voice']) {
      const audio = new File([new Uint8Array([1, 2, 3])], name, { type: 'audio/ogg' });
      const refused = groq.audio.transcriptions.create({ model: 'whisper-large-v3', file: audio });
      await expect(refused, name).rejects.toMatchObject({
        status: 400,
        error: { error: { code: 'unsupported_audio_format' } },
      });
    }
    const audio = new File([new Uint8Array([1])], 'voice.webm', { type: 'audio/webm' });
    fake.enqueueTranscription({ text: 'taken' });
    const taken = await groq.audio.transcriptions.create({
      model: 'whisper-large-v3',
      file: audio,
    });
    expect(taken.text).toBe('taken');
  });

  it('serves Groq chat like OpenAI', async () => {
    const groq = new Groq({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    fake.enqueue({ text: 'groq says hi' });
    const res = await groq.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'yo' }],
    });
    expect(res.choices[0]?.message.content).toBe('groq says hi');
    expect(fake.requests({ provider: 'groq' })[0]?.path).toBe('/openai/v1/chat/completions');
  });
});

describe('FakeModel via @google/genai', () => {
  const ai = () => new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });

  it('answers generateContent with text and usage', async () => {
    fake.enqueue({ text: 'gemini answer', usage: { input: 12, cached: 4, output: 6 } });
    const res = await ai().models.generateContent({
      model: 'gemini-test',
      contents: 'what is up',
      config: { systemInstruction: 'you are terse' },
    });
    expect(res.text).toBe('gemini answer');
    expect(res.usageMetadata).toMatchObject({
      promptTokenCount: 12,
      candidatesTokenCount: 6,
      cachedContentTokenCount: 4,
      totalTokenCount: 18,
    });
    const req = fake.chatRequests()[0]!;
    expect(req).toMatchObject({ provider: 'gemini', model: 'gemini-test', stream: false });
    expect(req.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test');
    expect(userTexts(req)).toEqual(['what is up']);
    expect(systemText(req)).toBe('you are terse');
  });

  it('streams generateContent text, usage and function calls', async () => {
    fake.enqueue({
      text: 'streamed gemini words here',
      toolCalls: [{ name: 'search', arguments: { q: 'cats' } }],
    });
    const stream = await ai().models.generateContentStream({
      model: 'gemini-test',
      contents: [{ role: 'user', parts: [{ text: 'go' }] }],
    });
    let text = '';
    let chunks = 0;
    let usage: unknown;
    const calls: unknown[] = [];
    for await (const chunk of stream) {
      chunks++;
      text += chunk.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
      if (chunk.usageMetadata) usage = chunk.usageMetadata;
    }
    expect(chunks).toBeGreaterThan(1);
    expect(text).toBe('streamed gemini words here');
    expect(calls).toEqual([{ name: 'search', args: { q: 'cats' } }]);
    expect(usage).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5 });
    const req = fake.chatRequests()[0]!;
    expect(req.path).toBe('/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
    expect(req.stream).toBe(true);
    expect(lastUserText(req)).toBe('go');
  });

  it('surfaces a Gemini-style error', async () => {
    fake.enqueue({ status: 400 });
    await expect(
      ai().models.generateContent({ model: 'gemini-test', contents: 'x' }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('FakeModel faults', () => {
  /** A raw streamed chat request, as the wire carries it. */
  const post = (path: string, body: object, signal?: AbortSignal) =>
    fetch(`${fake.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const openAiStream = (signal?: AbortSignal) =>
    post('/v1/chat/completions', { model: 'm', messages: [], stream: true }, signal);
  const geminiStream = () =>
    post('/v1beta/models/g:streamGenerateContent?alt=sse', { contents: [] });
  const dataLines = (raw: string) =>
    raw
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice('data: '.length));

  it('cuts a stream short: N content chunks, no finish reason, no [DONE]', async () => {
    fake.enqueue({ text: 'a b c d e f', chunks: 6, truncateAfter: 2 });
    const lines = dataLines(await (await openAiStream()).text());
    expect(lines).not.toContain('[DONE]');
    const chunks = lines.map((l) => JSON.parse(l));
    expect(chunks).toHaveLength(3); // the role chunk and two pieces
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toBe('a b ');
    expect(chunks.every((c) => c.choices[0].finish_reason === null)).toBe(true);
  });

  it('cuts a Gemini stream short: no chunk has a finishReason', async () => {
    fake.enqueue({ text: 'a b c d', chunks: 4, truncateAfter: 3 });
    const chunks = dataLines(await (await geminiStream()).text()).map((l) => JSON.parse(l));
    expect(chunks).toHaveLength(3);
    expect(chunks.some((c) => c.candidates[0].finishReason)).toBe(false);
    expect(chunks.some((c) => c.usageMetadata)).toBe(false);
  });

  it('breaks a stream with a data line that is not JSON, or sends garbage', async () => {
    fake.enqueue({ text: 'a b c', malformed: 'sse' }, { text: 'a b c', malformed: 'body' });
    const broken = dataLines(await (await openAiStream()).text());
    expect(() => JSON.parse(broken[1]!)).toThrow(SyntaxError);
    expect(broken.at(-1)).toBe('[DONE]');
    const garbage = await openAiStream();
    expect(garbage.status).toBe(200);
    expect(dataLines(await garbage.text())).toEqual([]);
  });

  it('sends a whole (non-streamed) reply half-cut or garbled', async () => {
    fake.enqueue({ text: 'x', truncateAfter: 0 }, { text: 'x', malformed: 'body' });
    const ask = () => post('/v1/chat/completions', { model: 'm', messages: [] });
    for (let i = 0; i < 2; i++) {
      const res = await ask();
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
    }
  });

  it('drops the connection before any response, and does not count it as a client abort', async () => {
    fake.enqueue({ drop: true });
    await expect(openAiStream()).rejects.toThrow(TypeError);
    expect(fake.chatRequests()).toHaveLength(1);
    expect(fake.chatRequests()[0]?.aborted).toBe(false);
  });

  it('resets the connection mid-stream after N content chunks, not as a client abort', async () => {
    fake.enqueue({ text: 'a b c d', chunks: 4, resetAfter: 1 }, { text: 'x', resetAfter: 0 });
    const reader = (await openAiStream()).body!.getReader();
    let raw = '';
    const cut = await (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        raw += new TextDecoder().decode(value);
      }
    })().catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(Error);
    const chunks = dataLines(raw).map((l) => JSON.parse(l));
    expect(chunks.map((c) => c.choices[0].delta.content)).toEqual(['', 'a ']);
    // Before any content, a Gemini stream has sent its status and headers, then breaks.
    const gemini = await geminiStream();
    expect(gemini.status).toBe(200);
    await expect(gemini.text()).rejects.toThrow(TypeError);
    expect(fake.chatRequests().map((r) => r.aborted)).toEqual([false, false]);
  });

  it('trickles a word at a time until the client goes away', async () => {
    fake.enqueue({ trickle: true, chunkDelayMs: 5, text: 'start ' });
    const ac = new AbortController();
    const res = await openAiStream(ac.signal);
    const reader = res.body!.getReader();
    let raw = '';
    while ((raw.match(/"w\d+ "/g) ?? []).length < 5) {
      const { value } = await reader.read();
      raw += new TextDecoder().decode(value);
    }
    ac.abort();
    await fake.waitForAbort();
    expect(raw).toContain('"content":"start "');
    expect(raw).not.toContain('"finish_reason":"stop"');
  });

  it('sends the chosen Retry-After, and Gemini a RetryInfo detail', async () => {
    fake.enqueue({ status: 429, retryAfter: 30 }, { status: 503, retryAfter: 2 });
    const limited = await openAiStream();
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '30']);
    const gemini = await geminiStream();
    expect(gemini.status).toBe(503);
    const body = (await gemini.json()) as { error: { details: unknown } };
    expect(body.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' },
    ]);
  });

  it('storms: the next n chat requests fail, then the queue resumes', async () => {
    fake.failNext(3, 503);
    fake.enqueue({ text: 'after the storm' });
    const ask = () =>
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    for (let i = 0; i < 3; i++) await expect(ask()).rejects.toMatchObject({ status: 503 });
    expect(fake.pendingFaults()).toBe(0);
    expect((await ask()).choices[0]?.message.content).toBe('after the storm');
  });

  it('aims a fault at one provider, and fills a fault from the default reply', async () => {
    const groq = new Groq({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    fake.failNext(1, 429, { provider: 'openai', retryAfter: 5 });
    fake.injectFaults(1, { truncateAfter: 1 }, { provider: 'groq' });
    const fromGroq = await groq.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'hi there' }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const chunk of fromGroq) pieces.push(chunk.choices[0]?.delta.content ?? '');
    expect(pieces.join('')).toBe('echo: ');
    expect(fake.pendingFaults()).toBe(1);
    await expect(
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 429 });
    fake.failNext(2);
    fake.reset();
    expect(fake.pendingFaults()).toBe(0);
  });
});

describe('FakeModel refuses what the real APIs refuse', () => {
  const fn = (name: string) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: {} } },
  });
  const openAiAsk = (tools: ReturnType<typeof fn>[]) =>
    openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools,
    });
  const groqAsk = (tools: ReturnType<typeof fn>[]) =>
    new Groq({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 }).chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'x' }],
      tools,
    });

  it.each([
    ['a dot', 'github.search'],
    ['a colon', 'fs:read'],
    ['a space', 'get weather'],
    ['65 characters', 'a'.repeat(65)],
  ])('OpenAI: a function name with %s is a 400 naming the field', async (_what, name) => {
    fake.enqueue({ text: 'kept for the next request' });
    await expect(openAiAsk([fn('ok_tool'), fn(name)])).rejects.toMatchObject({
      status: 400,
      error: {
        type: 'invalid_request_error',
        param: 'tools[1].function.name',
        code: 'invalid_value',
      },
    });
    // The refused request used no scripted reply.
    const res = await openAiAsk([fn('ok-tool_2'), fn('a'.repeat(64))]);
    expect(res.choices[0]?.message.content).toBe('kept for the next request');
  });

  it('OpenAI: an empty tool list is a 400', async () => {
    await expect(openAiAsk([])).rejects.toMatchObject({
      status: 400,
      error: { param: 'tools', code: 'empty_array' },
    });
  });

  it('Groq: a bad function name and an empty tool list are 400s in its shape', async () => {
    for (const tools of [[fn('mcp.tool')], []]) {
      const error = await groqAsk(tools).then(
        () => undefined,
        (e: unknown) => e,
      );
      // groq-sdk keeps the whole body as `error`.
      expect(error).toMatchObject({
        status: 400,
        error: {
          error: { type: 'invalid_request_error', message: expect.stringMatching(/tools/) },
        },
      });
    }
    expect((await groqAsk([fn('mcp__tool')])).choices[0]?.message.content).toBe('echo: x');
  });

  describe('Gemini', () => {
    const ai = () => new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });
    const declare = (name: string, parametersJsonSchema: object = { type: 'object' }) => ({
      name,
      parametersJsonSchema,
    });
    const geminiAsk = (functionDeclarations: ReturnType<typeof declare>[]) =>
      ai().models.generateContent({
        model: 'gemini-test',
        contents: 'x',
        config: { tools: [{ functionDeclarations }] },
      });
    /** The refusal's message, from the error body the SDK carries in its message. */
    const refusedWith = async (request: Promise<unknown>): Promise<string> => {
      const error = await request.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ status: 400 });
      const body = JSON.parse((error as Error).message);
      expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      return body.error.message;
    };

    it('takes names with dots, colons and dashes up to 64 characters', async () => {
      const names = ['_private', 'fs.read:v2-x', `a${'b'.repeat(63)}`];
      const res = await geminiAsk(names.map((n) => declare(n)));
      expect(res.text).toBe('echo: x');
    });

    it.each([
      ['starts with a digit', '1tool'],
      ['starts with a dash', '-tool'],
      ['holds a slash', 'fs/read'],
      ['has 65 characters', 'a'.repeat(65)],
    ])('refuses a function name that %s', async (_what, name) => {
      const message = await refusedWith(geminiAsk([declare('fine'), declare(name)]));
      expect(message).toContain('function_declarations[1].name: [FIELD_INVALID]');
    });

    it('refuses an empty functionDeclarations list', async () => {
      const message = await refusedWith(geminiAsk([]));
      expect(message).toContain("tools[0].tool_type: required one_of 'tool_type'");
    });

    it('refuses $schema anywhere in parametersJsonSchema', async () => {
      const nested = {
        type: 'object',
        properties: { q: { $schema: 'https://json-schema.org/draft/2020-12/schema' } },
      };
      const message = await refusedWith(geminiAsk([declare('search', nested)]));
      expect(message).toContain('function_declarations[0].parameters_json_schema');
      expect(message).toContain('$schema is not supported');
    });

    it('refuses a $ref', async () => {
      const withRef = {
        type: 'object',
        properties: { q: { $ref: '#/$defs/q' } },
        $defs: { q: { type: 'string' } },
      };
      const message = await refusedWith(geminiAsk([declare('search', withRef)]));
      expect(message).toContain('$ref is not supported');
    });
  });
});
