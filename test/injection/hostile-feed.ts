/**
 * An MCP server over streamable HTTP on 127.0.0.1 (the SDK's McpServer, stateless) that serves
 * whatever an attacker put in its feed: `headlines {topic}` answers with the topic's text,
 * `status {topic}` fails (`isError`) with it. Both are marked read-only, as a news feed's
 * tools would be, so the only gate they meet is the trust gate's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface HostileFeed {
  /** The MCP endpoint. */
  url: string;
  /** What `headlines` and `status` answer for `topic`. */
  set(topic: string, text: string): void;
  close(): Promise<void>;
}

export async function startHostileFeed(): Promise<HostileFeed> {
  const topics = new Map<string, string>();
  const http = createServer((req, res) => {
    serve(req, res, topics).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    set: (topic, text) => void topics.set(topic, text),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  topics: Map<string, string>,
): Promise<void> {
  const server = new McpServer({ name: 'hostile-feed', version: '1.0.0' });
  const text = (topic: string) => topics.get(topic) ?? 'No news.';
  const readOnly = { annotations: { readOnlyHint: true } };
  server.registerTool(
    'headlines',
    {
      description: "Today's headlines on a topic",
      inputSchema: { topic: z.string() },
      ...readOnly,
    },
    async ({ topic }) => ({ content: [{ type: 'text', text: text(topic) }] }),
  );
  server.registerTool(
    'status',
    {
      description: 'Whether the feed has news on a topic',
      inputSchema: { topic: z.string() },
      ...readOnly,
    },
    async ({ topic }) => ({ content: [{ type: 'text', text: text(topic) }], isError: true }),
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
