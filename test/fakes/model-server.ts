/**
 * Fake model-provider HTTP server for end-to-end tests, speaking just enough of the OpenAI, Groq and
 * Gemini wire formats for the real SDKs (openai, groq-sdk, @google/genai) to talk to it.
 *
 * Routes:
 *   POST /v1/chat/completions                       OpenAI chat (stream or not)
 *   POST /openai/v1/chat/completions                Groq chat (same format)
 *   POST /openai/v1/audio/transcriptions            Groq transcription (multipart)
 *   POST /v1beta/models/{model}:generateContent     Gemini (any /vX/ version prefix accepted)
 *   POST /v1beta/models/{model}:streamGenerateContent?alt=sse
 *
 * Usage numbers follow the providers: `input` is the whole prompt count, `cached` a subset of it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  text?: string;
  toolCalls?: { id?: string; name: string; arguments: object | string }[];
  /** `thoughts` (Gemini only) is sent as thoughtsTokenCount, on top of `output`. */
  usage?: { input?: number; cached?: number; output?: number; thoughts?: number };
  status?: number;
  delayMs?: number;
  chunkDelayMs?: number;
  /** Streamed: how many pieces the text is split into (default 3). */
  chunks?: number;
  hang?: boolean;
}

export type Provider = 'openai' | 'groq' | 'gemini';
export type Kind = 'chat' | 'transcription';

export interface RecordedRequest {
  provider: Provider;
  kind: Kind;
  path: string;
  model: string;
  stream: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary provider JSON, inspected by tests
  body: any;
  headers: Record<string, string | string[] | undefined>;
  at: number;
  aborted: boolean;
}

type TranscriptionReply = { text?: string; status?: number; delayMs?: number };
type DefaultReply = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);
type Waiter = () => boolean; // returns true once satisfied (and then is removed)

const echo: DefaultReply = (req) => ({ text: `echo: ${lastUserText(req)}` });

/** Per-response state: `closed` flips when the connection goes away or the response ends. */
interface Ctx {
  res: ServerResponse;
  closed: boolean;
}

export class FakeModel {
  private queue: ScriptedReply[] = [];
  private transcriptions: TranscriptionReply[] = [];
  private defaultReply: DefaultReply = echo;
  private recorded: RecordedRequest[] = [];
  private waiters = new Set<Waiter>();
  private stopping = false;
  private seq = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeModel> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeModel(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => {
      fake.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: String(err) });
        else res.destroy();
      });
    });
    return fake;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  requests(filter: { provider?: Provider; kind?: Kind } = {}): RecordedRequest[] {
    return this.recorded.filter(
      (r) =>
        (!filter.provider || r.provider === filter.provider) &&
        (!filter.kind || r.kind === filter.kind),
    );
  }

  chatRequests(): RecordedRequest[] {
    return this.requests({ kind: 'chat' });
  }

  waitForRequest(n = 1, timeoutMs = 5000): Promise<RecordedRequest> {
    return this.waitFor(() => this.chatRequests()[n - 1], timeoutMs, `chat request #${n}`);
  }

  waitForAbort(timeoutMs = 5000): Promise<RecordedRequest> {
    return this.waitFor(
      () => this.recorded.find((r) => r.aborted),
      timeoutMs,
      'an aborted request',
    );
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  setDefault(reply: DefaultReply): void {
    this.defaultReply = reply;
  }

  enqueueTranscription(r: TranscriptionReply): void {
    this.transcriptions.push(r);
  }

  reset(): void {
    this.queue = [];
    this.transcriptions = [];
    this.recorded = [];
    this.defaultReply = echo;
  }

  // ---------------------------------------------------------------------------------------------

  private waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = () => {
        const found = probe();
        if (found === undefined) return false;
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`FakeModel: timed out after ${timeoutMs}ms waiting for ${what}`));
      }, timeoutMs);
      if (!waiter()) this.waiters.add(waiter);
    });
  }

  private notify(): void {
    for (const w of this.waiters) if (w()) this.waiters.delete(w);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? '';
    const ctx: Ctx = { res, closed: false };
    const base = { path, headers: { ...req.headers }, at: Date.now(), aborted: false };
    let rec: RecordedRequest;

    const gemini = /^\/v\w+\/models\/([^:/]+):(generateContent|streamGenerateContent)$/.exec(
      pathname,
    );
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    if (pathname === '/v1/chat/completions' || pathname === '/openai/v1/chat/completions') {
      const body = parseJson(raw);
      const provider = pathname.startsWith('/openai') ? 'groq' : 'openai';
      rec = {
        ...base,
        provider,
        kind: 'chat',
        model: body.model ?? '',
        stream: !!body.stream,
        body,
      };
    } else if (gemini) {
      const stream = gemini[2] === 'streamGenerateContent';
      const model = decodeURIComponent(gemini[1] ?? '');
      rec = { ...base, provider: 'gemini', kind: 'chat', model, stream, body: parseJson(raw) };
    } else if (pathname === '/openai/v1/audio/transcriptions') {
      const body = parseMultipart(raw, String(req.headers['content-type'] ?? ''));
      const model = body.fields.model ?? '';
      rec = { ...base, provider: 'groq', kind: 'transcription', model, stream: false, body };
    } else {
      return sendJson(res, 404, { error: { message: `no route for ${pathname}`, code: 404 } });
    }

    this.recorded.push(rec);
    res.on('close', () => {
      ctx.closed = true;
      if (!res.writableEnded && !this.stopping) {
        rec.aborted = true;
        this.notify();
      }
    });
    this.notify();

    if (rec.kind === 'transcription') return this.transcribe(ctx, rec);
    const next = this.queue.shift();
    const reply =
      next ??
      (typeof this.defaultReply === 'function' ? this.defaultReply(rec) : this.defaultReply);
    await pause(ctx, reply.delayMs ?? 0);
    if (reply.hang && !rec.stream) await pause(ctx, Number.POSITIVE_INFINITY);
    if (ctx.closed) return;
    if (reply.status) return sendError(res, rec.provider, reply.status);
    if (rec.provider === 'gemini') await this.gemini(ctx, rec, reply);
    else await this.openai(ctx, rec, reply);
  }

  private async transcribe(ctx: Ctx, rec: RecordedRequest): Promise<void> {
    const reply = this.transcriptions.shift() ?? {};
    await pause(ctx, reply.delayMs ?? 0);
    if (ctx.closed) return;
    if (reply.status) return sendError(ctx.res, 'groq', reply.status);
    const text = reply.text ?? 'transcribed text';
    const format = rec.body.fields.response_format ?? 'json';
    if (format === 'text') {
      ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
    } else if (format === 'verbose_json') {
      const language = rec.body.fields.language ?? 'en';
      sendJson(ctx.res, 200, { task: 'transcribe', language, duration: 1, text, segments: [] });
    } else {
      sendJson(ctx.res, 200, { text, x_groq: { id: `req_${++this.seq}` } });
    }
  }

  private async openai(ctx: Ctx, rec: RecordedRequest, reply: ScriptedReply): Promise<void> {
    const id = `chatcmpl-${++this.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const calls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${this.seq}_${i}`,
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
      return sendJson(ctx.res, 200, { ...head, object: 'chat.completion', choices, usage });
    }

    const chunk = (delta: object, finish: string | null = null) => ({
      ...head,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    const events: object[] = [chunk({ role: 'assistant', content: '' })];
    for (const piece of splitPieces(reply.text ?? '', reply.chunks))
      events.push(chunk({ content: piece }));
    calls.forEach((c, index) => {
      const first = {
        index,
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: '' },
      };
      events.push(chunk({ tool_calls: [first] }));
      for (const args of splitPieces(c.function.arguments, 3, true)) {
        events.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
      }
    });
    // Groq reports a stream's usage in the final chunk's x_groq.usage.
    const groqUsage = rec.provider === 'groq' ? { x_groq: { id: `req_${this.seq}`, usage } } : {};
    events.push({ ...chunk({}, finish_reason), ...groqUsage });
    if (rec.body.stream_options?.include_usage)
      events.push({ ...head, object: 'chat.completion.chunk', choices: [], usage });
    await streamSse(ctx, reply, events, true);
  }

  private async gemini(ctx: Ctx, rec: RecordedRequest, reply: ScriptedReply): Promise<void> {
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
    const responseId = `gem-${++this.seq}`;
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
      return sendJson(ctx.res, 200, response(parts.length ? parts : [{ text: '' }], true));
    }
    const pieces = splitPieces(text);
    const events = pieces.map((p, i) =>
      response([{ text: p }], i === pieces.length - 1 && !calls.length),
    );
    if (calls.length || !pieces.length)
      events.push(response(calls.length ? calls : [{ text: '' }], true));
    await streamSse(ctx, reply, events, false);
  }
}

// --- helpers for assertions over OpenAI-format and Gemini-format bodies -------------------------

type Part = { type?: string; text?: string };

function partsText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = (content as Part[]).filter((p) => typeof p?.text === 'string').map((p) => p.text);
  return texts.length ? texts.join('\n') : undefined;
}

export function userTexts(req: RecordedRequest): string[] {
  if (req.kind !== 'chat') return [];
  const out: (string | undefined)[] =
    req.provider === 'gemini'
      ? (req.body.contents ?? [])
          .filter((c: { role?: string }) => (c.role ?? 'user') === 'user')
          .map((c: { parts?: unknown }) => partsText(c.parts))
      : (req.body.messages ?? [])
          .filter((m: { role?: string }) => m.role === 'user')
          .map((m: { content?: unknown }) => partsText(m.content) ?? '');
  return out.filter((t): t is string => t !== undefined);
}

export function lastUserText(req: RecordedRequest): string {
  return userTexts(req).at(-1) ?? '';
}

export function systemText(req: RecordedRequest): string {
  if (req.kind !== 'chat') return '';
  if (req.provider === 'gemini') {
    const si = req.body.systemInstruction;
    if (si === undefined) return '';
    return partsText(typeof si === 'string' || Array.isArray(si) ? si : si.parts) ?? '';
  }
  return (req.body.messages ?? [])
    .filter((m: { role?: string }) => m.role === 'system' || m.role === 'developer')
    .map((m: { content?: unknown }) => partsText(m.content) ?? '')
    .join('\n');
}

// --- internals ------------------------------------------------------------------------------------

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

/** Splits text into ~n pieces on word boundaries (or by characters when `chars`), losslessly. */
function splitPieces(text: string, n = 3, chars = false): string[] {
  if (!text) return [];
  const units = chars ? [...text] : text.split(/(?<=\s)/);
  const size = Math.ceil(units.length / n);
  const out: string[] = [];
  for (let i = 0; i < units.length; i += size) out.push(units.slice(i, i + size).join(''));
  return out;
}

/** Waits `ms` (Infinity = forever) or until the response closes, whichever comes first. */
function pause(ctx: Ctx, ms: number): Promise<void> {
  if (ms <= 0 || ctx.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    ctx.res.once('close', done);
  });
}

async function streamSse(ctx: Ctx, reply: ScriptedReply, events: object[], done: boolean) {
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const [i, event] of events.entries()) {
    if (ctx.closed) return;
    if (i > 0) await pause(ctx, reply.chunkDelayMs ?? 0);
    if (ctx.closed) return;
    ctx.res.write(`data: ${JSON.stringify(event)}\n\n`);
    if (reply.hang) return pause(ctx, Number.POSITIVE_INFINITY);
  }
  if (ctx.closed) return;
  ctx.res.end(done ? 'data: [DONE]\n\n' : undefined);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const errorInfo: Record<number, [status: string, type: string]> = {
  400: ['INVALID_ARGUMENT', 'invalid_request_error'],
  401: ['UNAUTHENTICATED', 'authentication_error'],
  403: ['PERMISSION_DENIED', 'permission_error'],
  404: ['NOT_FOUND', 'not_found_error'],
  429: ['RESOURCE_EXHAUSTED', 'rate_limit_exceeded'],
  503: ['UNAVAILABLE', 'server_error'],
};

function sendError(res: ServerResponse, provider: Provider, status: number): void {
  const [gStatus, type] = errorInfo[status] ?? ['INTERNAL', 'server_error'];
  const message = `fake ${provider} error ${status}`;
  if (status === 429) res.setHeader('retry-after', '1');
  const body =
    provider === 'gemini'
      ? { error: { code: status, message, status: gStatus } }
      : { error: { message, type, code: type } };
  sendJson(res, status, body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJson(raw: Buffer) {
  try {
    return raw.length ? JSON.parse(raw.toString('utf8')) : {};
  } catch {
    return { raw: raw.toString('utf8') };
  }
}

interface MultipartBody {
  fields: Record<string, string>;
  file: { filename: string; size: number; contentType: string } | undefined;
}

/** Minimal multipart/form-data parser: text fields plus the (single) file part's metadata. */
function parseMultipart(raw: Buffer, contentType: string): MultipartBody {
  const out: MultipartBody = { fields: {}, file: undefined };
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return out;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let start = raw.indexOf(delimiter);
  while (start !== -1) {
    const next = raw.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = raw.subarray(start + delimiter.length + 2, next - 2); // skip CRLF after/before
    start = next;
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const head = part.subarray(0, split).toString('utf8');
    const data = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    if (filename === undefined) {
      out.fields[name] = data.toString('utf8');
    } else {
      const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream';
      out.file = { filename, size: data.length, contentType: type.trim() };
    }
  }
  return out;
}
