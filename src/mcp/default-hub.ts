import type { Clock } from '../core/clock.ts';
import { ToolError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { createRedactor, redactSecretShapes } from '../core/redact.ts';
import { createMcpHub } from './hub.ts';
import type { McpPinStore } from './pins.ts';
import type { McpHub } from './types.ts';

/**
 * The hub satchel runs with (the core's, doctor's): servers get a minimal environment, and
 * `secrets` (the packs' secret settings and satchel's own) and anything shaped like a secret
 * are removed from what the servers say before it is cut, logged or shown (SPEC §15).
 * With `pins`, a tool whose listing differs from its pin is withheld (SPEC §17).
 */
export function createDefaultHub(
  log: Logger,
  secrets: readonly (string | undefined)[],
  more: { clock?: Clock; pins?: McpPinStore } = {},
): McpHub {
  const known = createRedactor(secrets);
  const redact = (text: string) => redactSecretShapes(known(text));
  return createMcpHub({ log, redact, ...more });
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
