import { afterEach } from 'vitest';
import { FakeWeb } from '../fakes/web-server.ts';

/** Local web servers for one test file, each stopped after its test. */
export function webServers() {
  const servers: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop();
  });
  return {
    async start(handler: Parameters<typeof FakeWeb.start>[0]): Promise<FakeWeb> {
      const server = await FakeWeb.start(handler);
      servers.push(server);
      return server;
    },
    /** Stops `server` with the others (a search API, say). */
    keep<T extends { stop(): Promise<void> }>(server: T): T {
      servers.push(server);
      return server;
    },
  };
}
