import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { Mount } from '../dashboard/handler.ts';
import type { WebChannel } from './channel.ts';
import type { WebInput } from './input.ts';
import type { Asset } from './page.ts';
import type { ChatUpdate, Snapshot } from './transcript.ts';
import type { Welcome } from './welcome.ts';

/** Where the chat lives on the dashboard's server. */
export const CHAT_PATH = '/chat';

/** The most a typed message may hold (a Telegram message holds 4096). */
export const MAX_MESSAGE_CHARS = 16_000;
/** The answer to a line the conversation has no room for (429: the page keeps the text). */
export const BUSY =
  'I am still working on your earlier messages, so I did not take this one. Send it again in a moment.';
/** The most a request body may hold; more is refused before it is read to its end. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ChatRoutesDeps {
  address: Address;
  channel: WebChannel;
  input: WebInput;
  assets: ReadonlyMap<string, Asset>;
  log: Logger;
  /** What the first screen offers (the packs now installed, the commands). */
  welcome(): Welcome;
}

type Answer = { status: number; body: unknown };
const answer = (status: number, body: unknown): Answer => ({ status, body });

/**
 * The web chat on the dashboard's server (behind its token, under its security headers):
 * `GET /chat` and its files, `GET /chat/events` — the conversation as server-sent events
 * (a snapshot, then each message, edit, deletion, draft, notice and sign of work as it
 * happens), `GET /chat/welcome` — the first screen's packs and commands — and
 * `POST /chat/send` (`{text}`), `POST /chat/press` (`{message, data}`), `POST /chat/pick`
 * (`{pack}`: a pack chosen on the first screen) and `POST /chat/stop` (`{}`: the Stop
 * button, as `/stop`). A POST must be JSON and, when the token came as the browser's cookie,
 * come from the page's own origin: another site cannot make a browser send any of them.
 */
export function createChatRoutes(deps: ChatRoutesDeps): Mount {
  const conversation = deps.channel.conversation(deps.address);

  function events(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    const send = (type: string, data: Snapshot | ChatUpdate) =>
      response.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    // Reconnect soon after a restart; the snapshot then shows the conversation again.
    response.write('retry: 1000\n\n');
    send('snapshot', conversation.snapshot());
    const stop = conversation.subscribe((update) => {
      // A page gone without a close event: throwing unsubscribes it (transcript.ts).
      if (response.writableEnded || response.destroyed) throw new Error('page gone');
      send(update.type, update);
    });
    request.on('close', stop);
  }

  async function post(request: IncomingMessage, path: string): Promise<Answer> {
    const body = await readJson(request);
    if (body === undefined) return answer(400, { error: 'The body must be a JSON object.' });
    if (path === '/send') {
      const text = typeof body.text === 'string' ? body.text : undefined;
      if (text === undefined || text.trim() === '')
        return answer(400, { error: 'Type a message first.' });
      if (text.length > MAX_MESSAGE_CHARS)
        return answer(413, { error: `A message holds at most ${MAX_MESSAGE_CHARS} characters.` });
      if (deps.input.line(text) === 'busy') return answer(429, { error: BUSY, busy: true });
      return answer(202, { ok: true });
    }
    if (path === '/stop') {
      deps.input.stop();
      return answer(202, { ok: true });
    }
    if (path === '/pick') {
      const { pack } = body;
      if (typeof pack !== 'string' || !deps.welcome().packs.some((p) => p.name === pack))
        return answer(409, { error: 'There is no such pack.' });
      deps.input.pick(pack);
      return answer(202, { ok: true });
    }
    if (path === '/press') {
      const { message, data } = body;
      if (typeof message !== 'number' || typeof data !== 'string')
        return answer(400, { error: 'A press names its message and button.' });
      if (!deps.input.press(message, data))
        return answer(409, { error: 'That button is no longer shown.' });
      return answer(202, { ok: true });
    }
    return answer(404, { error: 'Not found' });
  }

  function handle(request: IncomingMessage, response: ServerResponse, via: 'cookie' | 'bearer') {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.slice(CHAT_PATH.length) || '/';
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (path === '/events' && request.method === 'GET') return events(request, response);
      if (path === '/welcome') return reply(response, answer(200, deps.welcome()));
      const asset = deps.assets.get(path);
      if (!asset) return reply(response, answer(404, { error: 'Not found' }));
      response.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length });
      response.end(request.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'GET, HEAD, POST');
      return reply(response, answer(405, { error: 'Method not allowed' }));
    }
    const forged = forgery(request, via);
    if (forged) return reply(response, answer(403, { error: forged }));
    post(request, path).then(
      (result) => reply(response, result),
      (error: unknown) => {
        const tooBig = error instanceof BodyTooLarge;
        if (!tooBig) deps.log.error({ event: 'web_chat_error', err: error }, 'chat request failed');
        reply(
          response,
          tooBig ? answer(413, { error: 'Too large.' }) : answer(500, { error: 'Internal error' }),
        );
      },
    );
  }

  return { path: CHAT_PATH, handle };
}

/**
 * Why a POST may be forged by another site (undefined when it cannot be). Only the page's
 * own script can send JSON with the cookie from this origin: a form cannot set the type, and
 * another origin's script is stopped by the browser (no CORS here) and names its origin.
 */
function forgery(request: IncomingMessage, via: 'cookie' | 'bearer'): string | undefined {
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? ''))
    return 'Send JSON (content-type: application/json).';
  if (via === 'bearer') return undefined;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'Cross-site requests are refused.';
  if (request.headers.origin !== `http://${request.headers.host}`)
    return 'Cross-site requests are refused.';
  return undefined;
}

class BodyTooLarge extends Error {}

/** The request's JSON object; undefined when it is not one. Rejects past 64 KB. */
async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, { status, body }: Answer): void {
  if (response.headersSent) return;
  const json = `${JSON.stringify(body)}\n`;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}
