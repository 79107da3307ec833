import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { comparePins, type McpPinStore, pinOf, type ToolPin } from './pins.ts';
import { namesOf } from './tool-names.ts';
import type { McpServerConfig, McpTool, WithheldTool } from './types.ts';

/** What the pins let through of one listing, and what they hold back. */
export interface GateResult {
  offered: McpTool[];
  withheld: WithheldTool[];
}

export interface PinGate {
  /**
   * One server's current listing against its pins, read afresh each time (so a change the
   * owner trusted with `pack trust` is offered on the next turn). The first listing of a
   * server with no pins pins it. `firstSight`: the caller is the first to see this listing,
   * so its withheld tools are logged (`mcp_tool_withheld`, one line for the listing).
   */
  check(config: McpServerConfig, listing: readonly McpTool[], firstSight: boolean): GateResult;
}

/** The pins of SPEC §17 between a server's listing and the model. */
export function createPinGate(deps: { store: McpPinStore; log: Logger; clock: Clock }): PinGate {
  // A listing's pins are worked out once: a turn compares strings, not schemas.
  const pinsOf = new WeakMap<readonly McpTool[], { tool: McpTool; pin: ToolPin }[]>();
  const entries = (listing: readonly McpTool[]) => {
    let known = pinsOf.get(listing);
    if (!known) {
      known = listing.map((tool) => ({ tool, pin: pinOf(tool) }));
      pinsOf.set(listing, known);
    }
    return known;
  };

  return {
    check(config, listing, firstSight) {
      const listed = entries(listing);
      const { first, offered, withheld } = comparePins(
        listed,
        deps.store.read(config.pack, config.name),
      );
      if (first && listed.length > 0)
        deps.store.write(
          config.pack,
          config.name,
          listed.map((entry) => entry.pin),
          deps.clock.now(),
        );
      const result = withheld.map(({ tool, change }) => ({
        pack: config.pack,
        server: config.name,
        tool: tool.tool,
        change,
        current: tool,
      }));
      if (firstSight && result.length > 0) logWithheld(deps.log, config, result);
      return { offered, withheld: result };
    },
  };
}

function logWithheld(log: Logger, config: McpServerConfig, withheld: WithheldTool[]): void {
  const tools = withheld.map((w) => w.tool);
  log.warn(
    {
      event: 'mcp_tool_withheld',
      pack: config.pack,
      server: config.name,
      tools,
      changes: withheld.slice(0, MAX_LOGGED).map((w) => ({ tool: w.tool, ...summary(w) })),
    },
    `MCP tools of ${config.pack}/${config.name} withheld until trusted (npx satchel pack trust ${config.pack}): ${namesOf(tools)}`,
  );
}

/** A log line details this many changes at most (a listing may hold a thousand tools). */
const MAX_LOGGED = 50;

/** The log's word for a change (no description text: the log line stays short). */
function summary(w: WithheldTool): {
  change: string;
  schemaKeys?: string[];
  effect?: { from: string; to: string };
} {
  if (w.change.kind === 'added') return { change: 'added' };
  const what = [
    w.change.description && 'description',
    w.change.schemaKeys && 'schema',
    w.change.effect && 'effect',
  ];
  return {
    change: `${what.filter(Boolean).join(' and ')} changed`,
    ...(w.change.schemaKeys ? { schemaKeys: w.change.schemaKeys } : {}),
    ...(w.change.effect ? { effect: w.change.effect } : {}),
  };
}
