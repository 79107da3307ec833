import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeAfterAnswer } from '../core/close-after-answer.ts';
import type { HttpMount as Mount, HttpRoute as Route } from '../core/edge.ts';
import type { Logger } from '../core/ports.ts';
import type { WebChannel } from './channel.ts';
import {
  type Answer,
  CONVERSATION_ROUTES,
  type ConversationRoutes,
  NO_SUCH_CONVERSATION,
  namedIn,
} from './conversation-routes.ts';
import { addressOf, type Conversations } from './conversations.ts';
import type { WebInput } from './input.ts';
import type { ModelRoutes } from './model-routes.ts';
import type { Asset } from './page.ts';
import type { PendingUploads } from './pending-uploads.ts';
import type { Redo, RedoKind } from './redo.ts';
import type { ChatUpdate, Snapshot } from './transcript.ts';
import { receiveUpload } from './upload-route.ts';
import type { UploadStore } from './uploads.ts';
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
  /** The conversations, each its own address (conversations.ts). */
  conversations: Conversations;
  /** The list's own routes: pin, delete and undo, search, export (conversation-routes.ts). */
  manage: ConversationRoutes;
  /** The header's model picker (model-routes.ts). */
  models: ModelRoutes;
  channel: WebChannel;
  input: WebInput;
  /** Where sent files are kept, by conversation (uploads.ts). */
  uploads: UploadStore;
  /** What was sent and waits for its answer: an upload past its bound is refused. */
  pending: Pick<PendingUploads, 'room'>;
  assets: ReadonlyMap<string, Asset>;
  log: Logger;
  /** What conversation `id`'s first screen offers (the packs now installed, the commands). */
  welcome(id: string): Welcome;
  /** Speech to text is set up: the page offers its microphone. */
  voiceInput?(): boolean;
  /** Regenerate, edit and resend, Retry: the last exchange again (redo.ts). */
  redo: Redo;
}

const answer = (status: number, body: unknown): Answer => ({ status, body });

/**
 * The web chat on the dashboard's server (behind its token, under its security headers):
 * `GET /chat` and its files, `GET /chat/events` — the conversation as server-sent events
 * (a snapshot, then each message, edit, deletion, draft, notice and sign of work as it
 * happens), `GET /chat/welcome` — the first screen's packs and commands — and
 * `POST /chat/send` (`{text}`), `POST /chat/press` (`{message, data}`), `POST /chat/pick`
 * (`{pack}`: a pack chosen on the first screen), `POST /chat/stop` (`{}`: the Stop
 * button, as `/stop`), and `POST /chat/regenerate`, `/chat/retry` (`{}`) and `/chat/edit`
 * (`{text}`): the last exchange again (redo.ts). A POST must be JSON; the router refused it already unless it came
 * from the page's own origin (dashboard/auth.ts `crossSite`). `POST /chat/upload` takes a
 * file as its body instead (upload-route.ts), and `GET /chat/files/<id>` shows a sent
 * picture again or plays a spoken answer. The web app manifest and its icons need no token.
 *
 * Each conversation is its own address (conversations.ts): the events, the welcome and an
 * upload name it as `?c=<id>`, every other POST as `conversation` in its body; a request
 * that names none goes to the most recently used, one that names an unknown one gets 404.
 * `GET /chat/conversations` lists them; making, naming, pinning, deleting, searching and
 * exporting them are conversation-routes.ts's.
 */
export function createChatRoutes(deps: ChatRoutesDeps): Mount {
  /** The conversation's id a request names, the current one when none; undefined: no such. */
  function chosen(named: unknown): string | undefined {
    const id = namedIn(named);
    if (id === null) return undefined;
    if (id === undefined) return deps.conversations.current().id;
    return deps.conversations.get(id) ? id : undefined;
  }

  function events(request: IncomingMessage, response: ServerResponse, id: string): void {
    const conversation = deps.channel.conversation(addressOf(id));
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    const send = (type: string, data: Snapshot | ChatUpdate) =>
      response.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    // Reconnect soon after a restart; the snapshot then shows the conversation again.
    response.write('retry: 1000\n\n');
    // It names the conversation: a page that named none learns which it is shown; and says
    // whether voice can be sent (the microphone is offered only then).
    const voiceInput = deps.voiceInput?.() ? { voiceInput: true as const } : {};
    send('snapshot', { ...conversation.snapshot(), conversation: id, ...voiceInput });
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
    if (path === '/model') return deps.models.post(body);
    const listed = deps.manage.post(path, body);
    if (listed) return listed;
    const id = chosen(body.conversation);
    if (id === undefined) return NO_SUCH_CONVERSATION;
    const address = addressOf(id);
    if (path === '/send') {
      const text = typeof body.text === 'string' ? body.text : undefined;
      if (text === undefined || text.trim() === '')
        return answer(400, { error: 'Type a message first.' });
      if (text.length > MAX_MESSAGE_CHARS)
        return answer(413, { error: `A message holds at most ${MAX_MESSAGE_CHARS} characters.` });
      if (deps.input.line(address, text) === 'busy')
        return answer(429, { error: BUSY, busy: true });
      return answer(202, { ok: true });
    }
    if (path === '/regenerate' || path === '/retry')
      return deps.redo(address, path.slice(1) as RedoKind);
    if (path === '/edit') {
      const text = typeof body.text === 'string' ? body.text : '';
      if (text.length > MAX_MESSAGE_CHARS)
        return answer(413, { error: `A message holds at most ${MAX_MESSAGE_CHARS} characters.` });
      return deps.redo(address, 'edit', text);
    }
    if (path === '/stop') {
      deps.input.stop(address);
      return answer(202, { ok: true });
    }
    if (path === '/pick') {
      const { pack } = body;
      if (typeof pack !== 'string' || !deps.welcome(id).packs.some((p) => p.name === pack))
        return answer(409, { error: 'There is no such pack.' });
      deps.input.pick(address, pack);
      return answer(202, { ok: true });
    }
    if (path === '/press') {
      const { message, data } = body;
      if (typeof message !== 'number' || typeof data !== 'string')
        return answer(400, { error: 'A press names its message and button.' });
      if (!deps.input.press(address, message, data))
        return answer(409, { error: 'That button is no longer shown.' });
      return answer(202, { ok: true });
    }
    return answer(404, { error: 'Not found' });
  }

  function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.slice(CHAT_PATH.length) || '/';
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (path === '/models') {
        deps.models.get(url.searchParams).then(
          (result) => reply(response, result),
          (error: unknown) => {
            deps.log.error({ event: 'web_chat_error', err: error }, 'model list failed');
            reply(response, answer(500, { error: 'Internal error' }));
          },
        );
        return;
      }
      const managed = deps.manage.get(path, url.searchParams);
      if (managed) return reply(response, managed);
      if (path === '/events' || path === '/welcome') {
        const id = chosen(url.searchParams.get('c') ?? undefined);
        if (id === undefined) return reply(response, NO_SUCH_CONVERSATION);
        if (path === '/welcome') return reply(response, answer(200, deps.welcome(id)));
        if (request.method === 'GET') return events(request, response, id);
      }
      const file = path.startsWith('/files/') ? path.slice('/files/'.length) : undefined;
      const asset =
        file === undefined
          ? deps.assets.get(path)
          : (deps.uploads.image(file) ?? deps.uploads.voice(file));
      if (!asset) return reply(response, answer(404, { error: 'Not found' }));
      response.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length });
      response.end(request.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'GET, HEAD, POST');
      return reply(response, answer(405, { error: 'Method not allowed' }));
    }
    const upload = path === '/upload';
    const forged = forgery(request, !upload);
    if (forged) return reply(response, answer(403, { error: forged }));
    const uploadTo = upload ? chosen(url.searchParams.get('c') ?? undefined) : undefined;
    if (upload && uploadTo === undefined) return reply(response, NO_SUCH_CONVERSATION);
    const handled = upload
      ? receiveUpload(request, url.searchParams, {
          store: deps.uploads,
          pending: deps.pending,
          conversation: uploadTo!,
          attach: (payload) => deps.input.attach(addressOf(uploadTo!), payload),
        })
      : post(request, path);
    handled.then(
      (result) => {
        // A body refused part-read is not read to its end: the connection closes after the answer.
        if (result.status === 413) closeAfterAnswer(response);
        reply(response, result);
      },
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

  const routes: Route[] = [
    ...[...deps.assets.keys()].flatMap((path) =>
      (path === '/' ? [CHAT_PATH, `${CHAT_PATH}/`] : [CHAT_PATH + path]).map((full) => ({
        method: 'GET' as const,
        path: full,
        ...(OPEN_ASSETS.has(path) ? { open: true } : {}),
        // The chat's page (and the home-screen app's start): without the token, sign-in.
        ...(path === '/' ? { page: true } : {}),
      })),
    ),
    { method: 'GET', path: `${CHAT_PATH}/events` },
    { method: 'POST', path: `${CHAT_PATH}/send` },
    { method: 'GET', path: `${CHAT_PATH}/welcome` },
    { method: 'POST', path: `${CHAT_PATH}/press` },
    { method: 'POST', path: `${CHAT_PATH}/pick` },
    { method: 'POST', path: `${CHAT_PATH}/stop` },
    { method: 'POST', path: `${CHAT_PATH}/regenerate` },
    { method: 'POST', path: `${CHAT_PATH}/edit` },
    { method: 'POST', path: `${CHAT_PATH}/retry` },
    { method: 'POST', path: `${CHAT_PATH}/upload` },
    { method: 'GET', path: `${CHAT_PATH}/files/*` },
    ...CONVERSATION_ROUTES(CHAT_PATH),
    { method: 'GET', path: `${CHAT_PATH}/models` },
    { method: 'POST', path: `${CHAT_PATH}/model` },
  ];
  return { routes, handle };
}

/**
 * Files a browser fetches without the cookie: the manifest (fetched without credentials)
 * and the icons it names. Nothing in them is private.
 */
const OPEN_ASSETS = new Set(['/manifest.webmanifest', '/icon-192.png', '/icon-512.png']);

/**
 * Why a POST may be forged (undefined when it is JSON): a form cannot set the type. The
 * router checked already that it came from the page's own origin. An upload (`json` false)
 * is a file of any type: the origin alone tells the page's own.
 */
function forgery(request: IncomingMessage, json = true): string | undefined {
  if (json && !/^application\/json\b/i.test(request.headers['content-type'] ?? ''))
    return 'Send JSON (content-type: application/json).';
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

function reply(response: ServerResponse, result: Answer): void {
  if (response.headersSent) return;
  if ('file' in result) {
    const { name, type, body } = result.file;
    // The ASCII name for old clients; the exact one (RFC 6266) for the rest.
    const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    response.writeHead(200, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
    response.end(body);
    return;
  }
  const { status, body } = result;
  const json = `${JSON.stringify(body)}\n`;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}
