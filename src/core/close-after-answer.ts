import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused body may go on arriving after the answer before the socket is dropped. */
const LINGER_MS = 5_000;

/**
 * Closes the connection after this answer without losing the answer: nginx's lingering close.
 *
 * The client may still be sending the body that was refused part-read (an upload past the
 * limit). A socket closed while bytes still arrive is reset, and the reset makes the client's
 * system drop what it had received and not yet read, the answer included: the page saw a
 * failed request (`fetch failed`, EPIPE) instead of the 413 and its words, more often on a
 * busy machine. So the answer goes out with `connection: close`, then this side of the
 * connection is shut (FIN) and what still arrives is read and dropped until the client ends
 * its side, for at most LINGER_MS, before the socket is destroyed.
 *
 * Node ends a `connection: close` answer's socket with `destroySoon()` (end, then destroy once
 * written); this socket's own `destroySoon` lingers instead. Were Node to stop calling it, the
 * connection would close as before.
 */
export function closeAfterAnswer(response: ServerResponse): void {
  response.setHeader('connection', 'close');
  const socket = response.socket;
  if (socket) socket.destroySoon = () => linger(socket);
  // The refused body may have been paused part-read: while it is, the socket is not read, so
  // its end never comes and every such connection was held the whole LINGER_MS (a webhook's
  // or the web chat's stop waited for it). Reading on lets the client's close end it at once.
  response.req.resume();
}

function linger(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.resume();
  socket.end();
}
