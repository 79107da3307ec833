import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAfterAnswer } from '../../src/core/close-after-answer.ts';

let server: Server | undefined;
afterEach(async () => {
  vi.useRealTimers();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that refuses every body after its first chunk, with 413, as the upload route does. */
async function refusingServer(close: 'node' | 'linger'): Promise<number> {
  server = createServer(async (request, response) => {
    for await (const _chunk of request) break;
    if (close === 'linger') closeAfterAnswer(response);
    else response.setHeader('connection', 'close');
    response.writeHead(413, { 'content-length': 4 });
    response.end('big\n');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Sends a chunked upload's first chunk, reads the whole answer (up to the server's FIN), then
 * goes on sending, as a client still uploading does. Resolves with the answer and the socket
 * error that the later chunk met, if any.
 */
async function uploadOnAfterAnswer(port: number) {
  // Half-open, as an uploading client is: the server's FIN does not end the sending side.
  const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  const ended = new Promise((resolve) => socket.once('end', resolve));
  let text = '';
  let error: string | undefined;
  socket.on('data', (chunk) => {
    text += chunk;
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    error = e.code;
  });
  const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
  socket.write(`POST /upload HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n${chunk}`);
  await ended;
  for (let i = 0; i < 20 && !error; i += 1) {
    socket.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.end();
  await closed;
  return { answer: text.split('\r\n')[0], error };
}

describe('a connection closed after an answer to a refused body', () => {
  it('reads and drops what the client still sends, so no reset can take the answer with it', async () => {
    const port = await refusingServer('linger');
    expect(await uploadOnAfterAnswer(port)).toEqual({
      answer: 'HTTP/1.1 413 Payload Too Large',
      error: undefined,
    });
  });

  it("is reset by Node's own close once the client sends on (what the lingering prevents)", async () => {
    const port = await refusingServer('node');
    const { answer, error } = await uploadOnAfterAnswer(port);
    expect(answer).toBe('HTTP/1.1 413 Payload Too Large');
    expect(['EPIPE', 'ECONNRESET']).toContain(error);
  });

  it('ends as soon as the client closes, also when the refused body was paused part-read', async () => {
    // LINGER_MS never runs out here: only the client's end can close the connection.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let serverSide: Promise<unknown> | undefined;
    server = createServer((request, response) => {
      // As the webhook reads a body past its limit: it stops reading, then answers.
      request.once('data', () => {
        request.pause();
        // (`once` would reject on the parse error of the body cut short.)
        serverSide = new Promise((resolve) => request.socket.once('close', resolve));
        closeAfterAnswer(response);
        response.writeHead(413, { 'content-length': 4 });
        response.end('big\n');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
    });
    const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
    // 4 MB at once: more than the connection holds while the server does not read.
    socket.write(`POST /upload HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n`);
    for (let i = 0; i < 64; i += 1) socket.write(chunk);
    await once(socket, 'end');
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    socket.end();
    await serverSide;
  });
});
