/** The fake model server's replies in the OpenAI (and Groq) and the Gemini wire formats. */
import type { RecordedRequest, ScriptedReply } from './model-server.ts';
import {
  type Ctx,
  type StreamEvents,
  sendBody,
  sendJson,
  splitPieces,
  streamSse,
} from './model-wire.ts';

/** Answers an OpenAI/Groq chat request: a whole completion, or its stream of chunks. */
export async function replyOpenAi(
  ctx: Ctx,
  rec: RecordedRequest,
  reply: ScriptedReply,
  seq: number,
): Promise<void> {
  const id = `chatcmpl-${seq}`;
  const created = Math.floor(Date.now() / 1000);
  const calls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${seq}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: argsString(c.arguments) },
  }));
  const finish_reason = calls.length ? 'tool_calls' : 'stop';
  const u = usageOf(reply);
  const usage = {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached },
    ...(reply.usage?.cost === undefined ? {} : { cost: reply.usage.cost }),
  };
  const head = { id, created, model: rec.model, system_fingerprint: 'fake' };

  if (!rec.stream) {
    const message = {
      role: 'assistant',
      content: reply.text ?? (calls.length ? null : ''),
      refusal: null,
      ...(calls.length ? { tool_calls: calls } : {}),
    };
    const choices = [{ index: 0, message, finish_reason, logprobs: null }];
    const body = { ...head, object: 'chat.completion', choices, usage };
    return sendBody(ctx.res, body, wholeBodyFaults(reply));
  }

  const chunk = (delta: object, finish: string | null = null) => ({
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const body: object[] = [];
  for (const piece of splitPieces(reply.text ?? '', reply.chunks))
    body.push(chunk({ content: piece }));
  calls.forEach((c, index) => {
    const first = {
      index,
      id: c.id,
      type: 'function',
      function: { name: c.function.name, arguments: '' },
    };
    body.push(chunk({ tool_calls: [first] }));
    for (const args of splitPieces(c.function.arguments, 3, true)) {
      body.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
    }
  });
  // Groq reports a stream's usage in the final chunk's x_groq.usage.
  const groqUsage = rec.provider === 'groq' ? { x_groq: { id: `req_${seq}`, usage } } : {};
  const tail: object[] = [{ ...chunk({}, finish_reason), ...groqUsage }];
  if (rec.body.stream_options?.include_usage)
    tail.push({ ...head, object: 'chat.completion.chunk', choices: [], usage });
  const events: StreamEvents = {
    head: [chunk({ role: 'assistant', content: '' })],
    body,
    tail,
    extra: (word) => chunk({ content: word }),
  };
  await streamSse(ctx, events, reply, true);
}

/** Answers a Gemini generateContent request, streamed (SSE) or whole. */
export async function replyGemini(
  ctx: Ctx,
  rec: RecordedRequest,
  reply: ScriptedReply,
  seq: number,
): Promise<void> {
  const u = usageOf(reply);
  const usageMetadata = {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output,
    cachedContentTokenCount: u.cached,
    ...(reply.usage?.thoughts ? { thoughtsTokenCount: reply.usage.thoughts } : {}),
    totalTokenCount: u.input + u.output + (reply.usage?.thoughts ?? 0),
  };
  const calls = (reply.toolCalls ?? []).map((c) => ({
    functionCall: {
      ...(c.id ? { id: c.id } : {}),
      name: c.name,
      args: typeof c.arguments === 'string' ? JSON.parse(c.arguments || '{}') : c.arguments,
    },
  }));
  const responseId = `gem-${seq}`;
  const response = (parts: object[], last: boolean) => ({
    candidates: [
      { content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
    ],
    ...(last ? { usageMetadata } : {}),
    modelVersion: rec.model,
    responseId,
  });
  const text = reply.text ?? '';

  if (!rec.stream) {
    const parts = [...(text ? [{ text }] : []), ...calls];
    const body = response(parts.length ? parts : [{ text: '' }], true);
    return sendBody(ctx.res, body, wholeBodyFaults(reply));
  }
  // Gemini has no separate finish chunk: the last content chunk carries the finish reason.
  const contents: object[][] = splitPieces(text, reply.chunks).map((p) => [{ text: p }]);
  if (calls.length) contents.push(calls);
  if (!contents.length) contents.push([{ text: '' }]);
  const last = contents.at(-1) ?? [];
  const truncated = reply.truncateAfter !== undefined || reply.trickle;
  const events: StreamEvents = {
    head: [],
    body: (truncated ? contents : contents.slice(0, -1)).map((parts) => response(parts, false)),
    tail: truncated ? [] : [response(last, true)],
    extra: (word) => response([{ text: word }], false),
  };
  await streamSse(ctx, events, reply, false);
}

/**
 * A scripted transcription: its text, the audio `duration` in seconds (verbose_json only;
 * 1 unless set), or a failure with `status`.
 */
export interface TranscriptionReply {
  text?: string;
  duration?: number;
  status?: number;
  delayMs?: number;
}

/**
 * Answers a transcription in the response_format it asked for (default json). OpenAI's json
 * carries `usage` as OpenAI reports it: tokens for a gpt-4o model, seconds for whisper-1
 * (a compatible server's carries none); Groq's carries its request id.
 */
export function replyTranscription(
  ctx: Ctx,
  rec: RecordedRequest,
  reply: TranscriptionReply,
  seq: number,
): void {
  const text = reply.text ?? 'transcribed text';
  const format = rec.body.fields.response_format ?? 'json';
  if (format === 'text') {
    ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
  } else if (format === 'verbose_json') {
    const language = rec.body.fields.language ?? 'en';
    const duration = reply.duration ?? 1;
    sendJson(ctx.res, 200, { task: 'transcribe', language, duration, text, segments: [] });
  } else if (rec.provider === 'groq') {
    sendJson(ctx.res, 200, { text, x_groq: { id: `req_${seq}` } });
  } else {
    sendJson(ctx.res, 200, { text, ...openAiTranscriptionUsage(rec.model, reply.duration ?? 1) });
  }
}

function openAiTranscriptionUsage(model: string, seconds: number) {
  if (model === 'whisper-1') return { usage: { type: 'duration', seconds } };
  if (!model.startsWith('gpt-4o')) return {};
  const audio = Math.round(seconds * 10);
  return {
    usage: {
      type: 'tokens',
      input_tokens: audio,
      input_token_details: { text_tokens: 0, audio_tokens: audio },
      output_tokens: 8,
      total_tokens: audio + 8,
    },
  };
}

function usageOf(reply: ScriptedReply) {
  return {
    input: reply.usage?.input ?? 10,
    cached: reply.usage?.cached ?? 0,
    output: reply.usage?.output ?? 5,
  };
}

function argsString(args: object | string): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** The faults of a whole (non-streamed) reply: any kind of breakage garbles or cuts the body. */
function wholeBodyFaults(reply: ScriptedReply): { truncate: boolean; malformed: boolean } {
  return { truncate: reply.truncateAfter !== undefined, malformed: !!reply.malformed };
}
