import type { Logger } from '../core/ports.ts';
import type { McpHub } from './types.ts';

/** The hub satchel runs with (the core's, doctor's). */
export function createDefaultHub(_log: Logger): McpHub {
  return unbuiltHub;
}

/** Until the hub lands: every server of a pack fails to start, and the turn goes on. */
const unbuiltHub: McpHub = {
  tools: async (servers) => ({
    tools: [],
    failed: servers.map((s) => ({ server: s.name, reason: 'MCP servers are not supported yet' })),
  }),
  call: async () => {
    throw new Error('MCP servers are not supported yet');
  },
  close: async () => {},
};
