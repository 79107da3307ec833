import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { createMcpHub } from './hub.ts';
import type { McpHub } from './types.ts';

/** The hub satchel runs with (the core's, doctor's): servers get a minimal environment. */
export function createDefaultHub(log: Logger, clock?: Clock): McpHub {
  return createMcpHub({ log, ...(clock ? { clock } : {}) });
}
