import { createServer, type Server, type Socket } from 'node:net';

/** Telegram as it looks when it cannot be reached: for pointing TELEGRAM_API_ROOT at. */
export interface DeadHost {
  root: string;
  /** Resolves when the first connection has been accepted. */
  connected: Promise<void>;
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers. */
export async function silentHost(): Promise<DeadHost> {
  const sockets = new Set<Socket>();
  let onConnection = () => {};
  const connected = new Promise<void>((resolve) => {
    onConnection = resolve;
  });
  const server = createServer((socket) => {
    sockets.add(socket);
    onConnection();
  });
  const port = await listen(server);
  return {
    root: `http://127.0.0.1:${port}`,
    connected,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * An API root on 127.0.0.1 where nothing listens: connections are refused. Port 2 is
 * privileged, unused and not among the ports fetch refuses to try (1 is). A port found free
 * and let go could be handed to the next server the test starts (its own fake model, say),
 * which would then answer.
 */
export async function refusingRoot(): Promise<string> {
  return 'http://127.0.0.1:2';
}

/** A port of 127.0.0.1 where nothing listens (yet): for a server the code under test opens. */
export async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
