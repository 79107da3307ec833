import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse) => void;

/**
 * A small HTTP server on 127.0.0.1 for the web tools' tests: a page, a search API, or the
 * "private" listener that the hostile suite proves no request reaches. Records every
 * request it got.
 */
export class FakeWeb {
  readonly requests: SeenRequest[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(handler: Handler): Promise<FakeWeb> {
    let web: FakeWeb | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        web?.requests.push(seen);
        handler(seen, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    web = new FakeWeb(server, (server.address() as AddressInfo).port);
    return web;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Answers with `body` as `type`. */
export function reply(res: http.ServerResponse, type: string, body: string | Buffer, status = 200) {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}
