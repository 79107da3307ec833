import type { Clock } from '../core/clock.ts';
import { ToolError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { createMcpHub } from './hub.ts';
import type { McpHub } from './types.ts';

/** The hub satchel runs with (the core's, doctor's): servers get a minimal environment. */
export function createDefaultHub(log: Logger, clock?: Clock): McpHub {
  return createMcpHub({ log, ...(clock ? { clock } : {}) });
}

/**
 * A hub that starts nothing: every server is unavailable for `reason`. `pack test` runs
 * offline, on a clock whose timers never fire, so it must not wait for a server.
 */
export function unavailableHub(reason: string): McpHub {
  return {
    tools: async (servers) => ({
      tools: [],
      failed: servers.map((s) => ({ server: s.name, reason })),
    }),
    call: async () => {
      throw new ToolError(reason);
    },
    close: async () => {},
  };
}
