/**
 * Webhook mode under hostile requests: bodies that are huge, not JSON, or JSON that is no
 * update. Each is refused with the right status and one log line, nothing is stored, and
 * the next real update is taken as usual.
 */
import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { ALLOWED_USER } from '../support/harness.ts';
import { WEBHOOK_SECRET as SECRET, webhookPerTest } from '../support/webhook-ingress.ts';

const w = webhookPerTest('satchel-webhook-faults-', { start: true });

/**
 * POSTs `chunks` to the webhook (with a Content-Length unless `chunked`) and resolves with
 * the status as soon as the answer comes, even while the body is still being sent (a
 * server may answer early and close).
 */
function post(chunks: Buffer[], o: PostOptions = {}): Promise<number> {
  return answer(chunks, o).then((a) => a.status);
}

interface PostOptions {
  /** No Content-Length: the body is sent chunked. */
  chunked?: boolean;
  /** The Content-Length to announce, whatever is sent. */
  announce?: number;
  secret?: string;
}

/**
 * How long a request may go unanswered: a check that is missing makes the server wait for
 * a body that never comes, and the test fails with this instead of hanging.
 */
const NO_ANSWER_MS = 5000;

/** The status and the Connection header of the answer to a POST of `chunks`. */
function answer(
  chunks: Buffer[],
  o: PostOptions = {},
): Promise<{ status: number; connection: string | undefined }> {
  const length = o.announce ?? chunks.reduce((n, c) => n + c.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(w.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': o.secret ?? SECRET,
        ...(o.chunked ? {} : { 'content-length': length }),
      },
    });
    let answered = false;
    req.setTimeout(NO_ANSWER_MS, () =>
      req.destroy(new Error(`no answer within ${NO_ANSWER_MS} ms`)),
    );
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
    });
    // Writing into a connection the server closed after answering is expected here.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const write = (i: number): void => {
      if (i === chunks.length || answered) return void req.end();
      if (req.write(chunks[i]!)) write(i + 1);
      else req.once('drain', () => write(i + 1));
    };
    write(0);
  });
}

const json = (value: string) => [Buffer.from(value)];
const stored = () => w.store.sqlite.prepare('SELECT update_id FROM inbound_updates').all();
const refusals = () => w.lines.filter((l) => l.event === 'tg_webhook_request_refused');

describe('webhook request bodies', () => {
  it('answers 400 to a null body, bad JSON and JSON that is not an object; logs one line each', async () => {
    expect(await post(json('null'))).toBe(400);
    expect(await post(json('{"update_id": 1, "message": '))).toBe(400);
    expect(await post(json('[{"update_id": 1}]'))).toBe(400);
    expect(await post(json('42'))).toBe(400);
    expect(stored()).toEqual([]);
    expect(refusals().map((l) => l.status)).toEqual([400, 400, 400, 400]);
    expect(w.lines.filter((l) => l.event === 'tg_webhook_request_failed')).toEqual([]);
  });

  it('answers 413 to a Content-Length over 1 MB before any of the body arrives', async () => {
    // Only the start of the announced body is sent: the answer can come from the header alone.
    const start = Buffer.from('{"update_id": 5, "x": "');
    expect(await post([start], { announce: 2 * 1024 * 1024 })).toBe(413);
    expect(stored()).toEqual([]);
    expect(refusals().map((l) => l.status)).toEqual([413]);
  });

  it('answers 413 to a chunked body once it passes 1 MB, without storing it', async () => {
    // A JSON array: read whole (without the cap) it is refused at once as no update (400).
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024, 0x78));
    expect(await post([Buffer.from('["'), ...chunks, Buffer.from('"]')], { chunked: true })).toBe(
      413,
    );
    expect(stored()).toEqual([]);
    expect(refusals().map((l) => l.status)).toEqual([413]);
  });

  it('answers 401 to a stranger and closes the connection instead of reading the body', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    expect(await answer([big], { secret: 'not-the-secret' })).toEqual({
      status: 401,
      connection: 'close',
    });
    expect(refusals()).toEqual([]);
  });

  it('answers 200 to an update nested 20,000 deep, settles it once as malformed, keeps none of it', async () => {
    // A private text message whose reply_to_message nests 20,000 levels (120 KB): reading it
    // recursively overflows the stack, and a 500 would make Telegram send it forever.
    const message = (inner: string) =>
      `{"message_id":1,"date":0,"chat":{"id":${ALLOWED_USER},"type":"private"},` +
      `"from":{"id":${ALLOWED_USER},"is_bot":false,"first_name":"U"},"text":"deep","reply_to_message":${inner}}`;
    const deep = `${'{"x":['.repeat(10_000)}0${']}'.repeat(10_000)}`;
    const body = json(`{"update_id":4242,"message":${message(deep)}}`);
    expect(await post(body)).toBe(200);
    expect(await post(body)).toBe(200);
    await vi.waitFor(() =>
      expect(w.lines.filter((l) => l.event === 'tg_update_malformed')).toMatchObject([
        { updateId: 4242, problem: 'nested deeper than 64 levels' },
      ]),
    );
    const rows = w.store.sqlite.prepare('SELECT update_id, status, payload FROM inbound_updates');
    expect(rows.all()).toEqual([{ update_id: 4242, status: 'done', payload: '' }]);
    expect(w.lines.filter((l) => l.event === 'tg_webhook_request_failed')).toEqual([]);
    expect(w.lines.filter((l) => l.event === 'tg_update_failed')).toEqual([]);
    expect(w.events).toEqual([]);

    w.tg.text({ userId: ALLOWED_USER, text: 'still here' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
  });

  it('takes the next real update after the refusals', async () => {
    expect(await post(json('null'))).toBe(400);
    expect(await post([Buffer.alloc(1024 * 1024 + 1, 0x20)])).toBe(413);
    const id = w.tg.text({ userId: ALLOWED_USER, text: 'still here' });
    await vi.waitFor(() => expect(w.events).toHaveLength(1));
    expect(w.events[0]).toMatchObject({ kind: 'text', text: 'still here' });
    expect(stored()).toEqual([{ update_id: id }]);
  });
});
