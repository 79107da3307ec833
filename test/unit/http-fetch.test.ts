import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/providers/http-fetch.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A server that records each request and answers it with `answer`. */
async function serve(answer: (res: http.ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const one = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(one);
      answer(res, one);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('httpFetch, the model SDKs’ fetch', () => {
  it('sends a text body with its headers and streams the answer as it comes', async () => {
    let sendRest!: () => void;
    const { url, seen } = await serve((res) => {
      res.writeHead(201, { 'content-type': 'text/event-stream', 'x-request-id': 'r1' });
      res.write('data: one\n\n');
      sendRest = () => res.end('data: two\n\n');
    });
    const response = await httpFetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'm', stream: true }),
    });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"model":"m","stream":true}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('r1');
    // The first event is readable before the server has sent the rest.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: one\n\n');
    sendRest();
    expect(decoder.decode((await reader.read()).value)).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('decodes a gzipped answer and gives no body for a 204', async () => {
    const { url } = await serve((res, seen) => {
      if (seen.url === '/empty') {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
      res.end(gzipSync('{"ok":true}'));
    });
    expect(await (await httpFetch(`${url}/zipped`)).json()).toEqual({ ok: true });
    const empty = await httpFetch(`${url}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('ends a request when its signal aborts, before or while the answer streams', async () => {
    const { url } = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const before = new AbortController();
    before.abort(new Error('stopped before'));
    await expect(httpFetch(url, { signal: before.signal })).rejects.toThrow('stopped before');

    const during = new AbortController();
    const response = await httpFetch(url, { method: 'POST', body: '{}', signal: during.signal });
    const reader = response.body!.getReader();
    await reader.read();
    during.abort(new Error('stopped during'));
    await expect(reader.read()).rejects.toThrow();
  });

  it('fails as the built-in fetch does when the host cannot be reached', async () => {
    const { url } = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const failure = await httpFetch(url, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('leaves a body that is not text (a multipart upload) to the built-in fetch', async () => {
    const { url, seen } = await serve((res) => res.end('ok'));
    const form = new FormData();
    form.append('file', new Blob(['voice']), 'voice.ogg');
    expect(await (await httpFetch(url, { method: 'POST', body: form })).text()).toBe('ok');
    expect(seen[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain('voice');
  });
});
