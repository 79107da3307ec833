/**
 * Fake model-provider HTTP server for end-to-end tests, speaking just enough of the OpenAI, Groq and
 * Gemini wire formats for the real SDKs (openai, groq-sdk, @google/genai) to talk to it.
 *
 * Routes:
 *   POST /v1/chat/completions                       OpenAI chat (stream or not)
 *   POST /openai/v1/chat/completions                Groq chat (same format)
 *   POST /openai/v1/audio/transcriptions            Groq transcription (multipart)
 *   POST /v1/audio/transcriptions                   OpenAI transcription (multipart; also a
 *                                                   local Whisper server's, at STT_BASE_URL)
 *   POST /v1/audio/speech                           OpenAI text to speech (model-speech.ts)
 *   POST /v1beta/models/{model}:generateContent     Gemini (any /vX/ version prefix accepted)
 *   POST /v1beta/models/{model}:streamGenerateContent?alt=sse
 *   GET  /v1/models, /openai/v1/models, /v1beta/models   model lists (see `setModels`)
 *
 * Titles: a chat request whose system prompt starts as the web chat's title call does
 * (TITLE_PROMPT_START) is recorded as kind `title`, not `chat`, and answered from its own
 * queue (`enqueueTitle`), else with the last line the owner wrote: it takes no scripted reply
 * meant for a turn, and tests that count chat requests do not count it.
 *
 * Usage numbers follow the providers: `input` is the whole prompt count, `cached` a subset of it.
 *
 * Faults: a scripted reply can cut its stream short (`truncateAfter`), reset its connection
 * mid-stream (`resetAfter`), break its JSON (`malformed`), drop the connection (`drop`),
 * trickle forever (`trickle`) or fail with a status and a Retry-After (`status`, `retryAfter`). `injectFaults` / `failNext` put faults in
 * front of the queued replies ("the next 3 chat requests get 503").
 *
 * Strict: a chat request the real API refuses (a bad function name, an empty tool list, a
 * schema Gemini cannot take; see model-strict.ts) is answered with that API's 400, before any
 * scripted reply or fault is used; so is a transcription without a model, with a model the
 * provider does not transcribe with (`setTranscriptionModels`), of a file whose name Whisper
 * does not take (`.oga`, `.weba`: it picks the format by the extension), or asking a gpt-4o
 * model for `verbose_json` (model-strict.ts).
 *
 * Keys: `requireKey(provider, key)` makes every request to that provider with another key fail
 * as the provider fails it (OpenAI and Groq: 401; Gemini: 400 with reason API_KEY_INVALID).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TITLE_PROMPT_START } from '../../src/turn/conversation-title.ts';
import {
  replyGemini,
  replyOpenAi,
  replyTranscription,
  type TranscriptionReply,
} from './model-replies.ts';
import { lastUserText, systemText } from './model-requests.ts';
import { SPEECH_OGG, type SpeechReply, speechRefusal } from './model-speech.ts';
import { refusal, TRANSCRIPTION_MODELS, transcriptionRefusal } from './model-strict.ts';
import {
  type Ctx,
  modelList,
  parseJson,
  parseMultipart,
  pause,
  preciseNow,
  readBody,
  sendError,
  sendJson,
  sendKeyError,
} from './model-wire.ts';
import { WAIT_BUDGET_MS } from './wait-budget.ts';

export type { TranscriptionReply } from './model-replies.ts';
export {
  clockLine,
  conversation,
  imagesOf,
  lastUserText,
  NOW_LINE,
  type RecordedImage,
  rawUserTexts,
  SENT_LINE,
  systemText,
  userTexts,
} from './model-requests.ts';
export { SPEECH_OGG, type SpeechReply } from './model-speech.ts';

export interface ScriptedReply {
  text?: string;
  toolCalls?: { id?: string; name: string; arguments: object | string }[];
  /**
   * `thoughts` (Gemini only) is sent as thoughtsTokenCount, on top of `output`; `cost`
   * (OpenAI-compatible only) is sent as `usage.cost`, in USD, as routers report it.
   */
  usage?: { input?: number; cached?: number; output?: number; thoughts?: number; cost?: number };
  status?: number;
  /** With `status`: the Retry-After header, in seconds (a 429 says 1 unless set). */
  retryAfter?: number;
  delayMs?: number;
  chunkDelayMs?: number;
  /** Streamed: how many pieces the text is split into (default 3). */
  chunks?: number;
  hang?: boolean;
  /**
   * Streamed: only this many content chunks are sent, then the response ends with no finish
   * reason and no [DONE]. Not streamed: half the JSON body.
   */
  truncateAfter?: number;
  /**
   * Streamed replies only: this many content chunks are sent (0: none, only the headers and
   * OpenAI's role chunk), then the connection is reset mid-response.
   */
  resetAfter?: number;
  /**
   * A 200 whose content is broken: `sse` puts a data line that is not JSON after the first
   * event (a whole reply: the body is garbage either way); `body` sends garbage in place of
   * the JSON or the event stream.
   */
  malformed?: 'sse' | 'body';
  /** The connection is destroyed before any byte of a response. */
  drop?: boolean;
  /** Streamed: one word every `chunkDelayMs` (default 200) until the client goes away. */
  trickle?: boolean;
  /** The reply waits until this settles: the test acts while the model call is open. */
  until?: Promise<unknown>;
}

/** A fault takes a reply's place; what it does not say comes from the default reply. */
export type Fault = Omit<ScriptedReply, 'text' | 'toolCalls' | 'usage'> &
  Partial<Pick<ScriptedReply, 'text'>>;

export type Provider = 'openai' | 'groq' | 'gemini';
export type Kind = 'chat' | 'title' | 'transcription' | 'speech' | 'models';

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
  /** When the whole request had arrived, to a fraction of a millisecond (`preciseNow`). */
  receivedAt: number;
  /** Streamed: when the first line after the stream's head (its first content) was written. */
  firstContentAt?: number;
  /** When the server was done replying (all written, or the client gone); unset on errors. */
  endedAt?: number;
  /** A streamed speech answer (`streamBytes`): how many of its bytes were written. */
  bytesSent?: number;
  aborted: boolean;
}

type DefaultReply = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);
type Waiter = () => boolean; // returns true once satisfied (and then is removed)
type PendingFault = { fault: Fault; provider: Provider | undefined };

/** A chat request that is the web chat's title call, recorded as kind `title`. */
function titled(rec: RecordedRequest): RecordedRequest {
  return systemText(rec).startsWith(TITLE_PROMPT_START) ? { ...rec, kind: 'title' } : rec;
}

const echo: DefaultReply = (req) => ({ text: `echo: ${lastUserText(req)}` });

/** What each provider lists at its model-list route unless `setModels` says otherwise. */
const DEFAULT_MODELS: Record<Provider, string[]> = {
  openai: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4o-mini'],
  groq: [
    'llama-3.3-70b-versatile',
    'meta-llama/llama-4-scout-17b-16e-instruct',
    'whisper-large-v3-turbo',
  ],
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro'],
};

export class FakeModel {
  private queue: ScriptedReply[] = [];
  private faults: PendingFault[] = [];
  private transcriptions: TranscriptionReply[] = [];
  private speeches: SpeechReply[] = [];
  private titles: ScriptedReply[] = [];
  private defaultReply: DefaultReply = echo;
  private recorded: RecordedRequest[] = [];
  private waiters = new Set<Waiter>();
  private stopping = false;
  private seq = 0;
  private keys = new Map<Provider, string>();
  private models: Record<Provider, string[]> = structuredClone(DEFAULT_MODELS);
  private sttModels: Record<'openai' | 'groq', readonly string[]> = { ...TRANSCRIPTION_MODELS };

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

  waitForRequest(n = 1, timeoutMs = WAIT_BUDGET_MS): Promise<RecordedRequest> {
    return this.waitFor(() => this.chatRequests()[n - 1], timeoutMs, `chat request #${n}`);
  }

  /** The `n`th transcription request, once it has arrived. */
  waitForTranscription(n = 1, timeoutMs = WAIT_BUDGET_MS): Promise<RecordedRequest> {
    return this.waitFor(
      () => this.requests({ kind: 'transcription' })[n - 1],
      timeoutMs,
      `transcription request #${n}`,
    );
  }

  waitForAbort(timeoutMs = WAIT_BUDGET_MS): Promise<RecordedRequest> {
    return this.waitFor(
      () => this.recorded.find((r) => r.aborted),
      timeoutMs,
      'an aborted request',
    );
  }

  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /**
   * The next `n` chat requests (to `provider` only, when given) get `fault` instead of a
   * reply; queued replies wait behind them. A fault without text streams the default reply.
   */
  injectFaults(n: number, fault: Fault, filter: { provider?: Provider } = {}): void {
    for (let i = 0; i < n; i++) this.faults.push({ fault, provider: filter.provider });
  }

  /** A storm: the next `n` chat requests get `status` (with `retryAfter` seconds when given). */
  failNext(
    n: number,
    status = 503,
    options: { retryAfter?: number; provider?: Provider } = {},
  ): void {
    const { provider, ...rest } = options;
    this.injectFaults(n, { status, ...rest }, provider ? { provider } : {});
  }

  /** Faults injected and not yet served. */
  pendingFaults(): number {
    return this.faults.length;
  }

  /** Requests to `provider` that do not carry `key` are refused as that provider refuses a key. */
  requireKey(provider: Provider, key: string): void {
    this.keys.set(provider, key);
  }

  /** The models `provider` lists at its model-list route. */
  setModels(provider: Provider, models: string[]): void {
    this.models[provider] = [...models];
  }

  /** The models `provider`'s transcription route takes (a local Whisper server's names). */
  setTranscriptionModels(provider: 'openai' | 'groq', models: string[]): void {
    this.sttModels[provider] = [...models];
  }

  setDefault(reply: DefaultReply): void {
    this.defaultReply = reply;
  }

  /** How the next title request is answered (default: the exchange's first line). */
  enqueueTitle(r: ScriptedReply): void {
    this.titles.push(r);
  }

  /** The title requests received (the web chat's title call). */
  titleRequests(): RecordedRequest[] {
    return this.requests({ kind: 'title' });
  }

  enqueueTranscription(r: TranscriptionReply): void {
    this.transcriptions.push(r);
  }

  /** How the next speech request is answered (default: the OGG fixture at once). */
  enqueueSpeech(r: SpeechReply): void {
    this.speeches.push(r);
  }

  reset(): void {
    this.queue = [];
    this.faults = [];
    this.transcriptions = [];
    this.speeches = [];
    this.titles = [];
    this.recorded = [];
    this.defaultReply = echo;
    this.keys.clear();
    this.models = structuredClone(DEFAULT_MODELS);
    this.sttModels = { ...TRANSCRIPTION_MODELS };
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

  /** The request as recorded, or undefined when no route takes it. */
  private record(req: IncomingMessage, raw: Buffer): RecordedRequest | undefined {
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? '';
    const base = {
      path,
      headers: { ...req.headers },
      at: Date.now(),
      receivedAt: preciseNow(),
      aborted: false,
    };
    const gemini = /^\/v\w+\/models\/([^:/]+):(generateContent|streamGenerateContent)$/.exec(
      pathname,
    );
    if (pathname === '/v1/chat/completions' || pathname === '/openai/v1/chat/completions') {
      const body = parseJson(raw);
      const provider = pathname.startsWith('/openai') ? 'groq' : 'openai';
      const model = body.model ?? '';
      return titled({ ...base, provider, kind: 'chat', model, stream: !!body.stream, body });
    }
    if (gemini) {
      const stream = gemini[2] === 'streamGenerateContent';
      const model = decodeURIComponent(gemini[1] ?? '');
      const rec = { ...base, provider: 'gemini' as const, kind: 'chat' as const, model, stream };
      return titled({ ...rec, body: parseJson(raw) });
    }
    const lists: Record<string, Provider> = {
      '/v1/models': 'openai',
      '/openai/v1/models': 'groq',
      '/v1beta/models': 'gemini',
    };
    const listed = lists[pathname];
    if (listed && req.method === 'GET')
      return { ...base, provider: listed, kind: 'models', model: '', stream: false, body: {} };
    if (pathname === '/openai/v1/audio/transcriptions' || pathname === '/v1/audio/transcriptions') {
      const body = parseMultipart(raw, String(req.headers['content-type'] ?? ''));
      const model = body.fields.model ?? '';
      const provider = pathname.startsWith('/openai') ? 'groq' : 'openai';
      return { ...base, provider, kind: 'transcription', model, stream: false, body };
    }
    if (pathname === '/v1/audio/speech') {
      const body = parseJson(raw);
      const model = typeof body.model === 'string' ? body.model : '';
      return { ...base, provider: 'openai', kind: 'speech', model, stream: false, body };
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const rec = this.record(req, raw);
    if (!rec && req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    if (!rec) {
      const pathname = (req.url ?? '/').split('?')[0];
      return sendJson(res, 404, { error: { message: `no route for ${pathname}`, code: 404 } });
    }
    const ctx: Ctx = { res, closed: false, dropped: false };
    this.recorded.push(rec);
    res.on('close', () => {
      ctx.closed = true;
      if (!res.writableEnded && !this.stopping && !ctx.dropped) {
        rec.aborted = true;
        this.notify();
      }
    });
    this.notify();

    const key = this.keys.get(rec.provider);
    if (key !== undefined && keyOf(rec) !== key) return sendKeyError(res, rec.provider);
    if (rec.kind === 'models') {
      // Strict as the APIs are: OpenAI's and Groq's lists answer only a request with a key.
      if (rec.provider !== 'gemini' && !rec.headers.authorization)
        return sendKeyError(res, rec.provider);
      return sendJson(res, 200, modelList(rec.provider, this.models));
    }
    if (rec.kind === 'transcription') return this.transcribe(ctx, rec);
    if (rec.kind === 'speech') return this.speak(ctx, rec);
    const refused = refusal(rec.provider, rec.body);
    if (refused) return sendJson(res, refused.status, refused.body);
    const reply = rec.kind === 'title' ? this.nextTitle(rec) : this.nextReply(rec);
    await pause(ctx, reply.delayMs ?? 0);
    if (reply.until) await Promise.race([reply.until, pause(ctx, Number.POSITIVE_INFINITY)]);
    if (reply.hang && !rec.stream) await pause(ctx, Number.POSITIVE_INFINITY);
    if (ctx.closed) return;
    if (reply.drop) {
      ctx.dropped = true;
      req.socket.destroy();
      return;
    }
    if (reply.status) return sendError(res, rec.provider, reply.status, reply.retryAfter);
    const seq = ++this.seq;
    if (rec.provider === 'gemini') await replyGemini(ctx, rec, reply, seq);
    else await replyOpenAi(ctx, rec, reply, seq);
    rec.endedAt = preciseNow();
    if (ctx.firstContentAt !== undefined) rec.firstContentAt = ctx.firstContentAt;
  }

  /**
   * The queued title, else the last line of what the owner wrote (`User: …` in the
   * exchange): a typed line, or a photo's caption under its note.
   */
  private nextTitle(rec: RecordedRequest): ScriptedReply {
    const queued = this.titles.shift();
    if (queued) return queued;
    const exchange = lastUserText({ ...rec, kind: 'chat' });
    const said = /^User: ([\s\S]*?)\n\nAssistant: /.exec(exchange)?.[1] ?? '';
    const last = said.split('\n').findLast((line) => line.trim() !== '');
    return { text: last?.replace(/^Caption:\s*/, '') ?? 'Untitled' };
  }

  /** A pending fault for this request's provider, else the queue, else the default. */
  private nextReply(rec: RecordedRequest): ScriptedReply {
    const index = this.faults.findIndex((f) => !f.provider || f.provider === rec.provider);
    const pending = index === -1 ? undefined : this.faults.splice(index, 1)[0];
    const fallback = () =>
      typeof this.defaultReply === 'function' ? this.defaultReply(rec) : this.defaultReply;
    if (pending) return { ...fallback(), ...pending.fault };
    return this.queue.shift() ?? fallback();
  }

  private async transcribe(ctx: Ctx, rec: RecordedRequest): Promise<void> {
    const provider = rec.provider === 'groq' ? 'groq' : 'openai';
    const refused = transcriptionRefusal(provider, rec.body, this.sttModels[provider]);
    if (refused) return sendJson(ctx.res, refused.status, refused.body);
    const reply = this.transcriptions.shift() ?? {};
    await pause(ctx, reply.delayMs ?? 0);
    if (ctx.closed) return;
    if (reply.status) return sendError(ctx.res, provider, reply.status);
    replyTranscription(ctx, rec, reply, ++this.seq);
  }

  private async speak(ctx: Ctx, rec: RecordedRequest): Promise<void> {
    const refused = speechRefusal(rec.body);
    if (refused) return sendJson(ctx.res, refused.status, refused.body);
    const reply = this.speeches.shift() ?? {};
    await pause(ctx, reply.delayMs ?? 0);
    if (reply.until) await Promise.race([reply.until, pause(ctx, Number.POSITIVE_INFINITY)]);
    if (ctx.closed) return;
    if (reply.status) return sendError(ctx.res, 'openai', reply.status);
    if (reply.streamBytes !== undefined) return streamSpeech(ctx, rec, reply.streamBytes);
    const body = reply.body ?? SPEECH_OGG;
    ctx.res.writeHead(200, { 'content-type': 'audio/ogg', 'content-length': body.length });
    ctx.res.end(body);
    rec.endedAt = preciseNow();
  }
}

/** `total` bytes of speech (the fixture repeated), chunked, until the client goes away. */
async function streamSpeech(ctx: Ctx, rec: RecordedRequest, total: number): Promise<void> {
  ctx.res.writeHead(200, { 'content-type': 'audio/ogg' });
  const chunk = Buffer.alloc(64 * 1024);
  for (let at = 0; at < chunk.length; at += SPEECH_OGG.length) SPEECH_OGG.copy(chunk, at);
  for (let sent = 0; sent < total && !ctx.closed; sent += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
    if (!ctx.res.write(piece)) await drained(ctx);
    rec.bytesSent = sent + piece.length;
  }
  if (ctx.closed) return;
  ctx.res.end();
  rec.endedAt = preciseNow();
}

/** Resolves when `ctx`'s response may be written again, or the client went away. */
function drained(ctx: Ctx): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      ctx.res.off('drain', done);
      ctx.res.off('close', done);
      resolve();
    };
    ctx.res.once('drain', done);
    ctx.res.once('close', done);
  });
}

/** The API key a request carries: a Bearer token (OpenAI, Groq) or Gemini's header or `key`. */
function keyOf(rec: RecordedRequest): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(String(rec.headers.authorization ?? ''));
  if (bearer) return bearer[1];
  const goog = rec.headers['x-goog-api-key'];
  if (typeof goog === 'string') return goog;
  return new URL(rec.path, 'http://fake').searchParams.get('key') ?? undefined;
}
