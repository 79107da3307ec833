import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { mcpToolPins } from './schema.ts';

/** What a server's tool was when it was pinned (SPEC §17: `mcp_tool_pins`). */
export interface ToolPin {
  tool: string;
  description: string;
  /** The input schema as canonical JSON (keys sorted): equal schemas pin equal. */
  inputSchema: string;
  /** The server marked it `readOnlyHint: true`: its calls are `read` and never ask (§17). */
  readOnly: boolean;
}

/** Where pins are kept (this repository; the hub reads and writes them through it). */
export interface McpPinStore {
  /** The pins of one pack's server. */
  read(pack: string, server: string): ToolPin[];
  /** Records these pins, replacing those of the same tools. */
  write(pack: string, server: string, pins: readonly ToolPin[], now: number): void;
}

/** A pin's columns, as both repositories read them. */
const pinColumns = {
  tool: mcpToolPins.tool,
  description: mcpToolPins.description,
  inputSchema: mcpToolPins.inputSchema,
  readOnly: mcpToolPins.readOnly,
};

/** The MCP tools' pins (SPEC §17) in `mcp_tool_pins`, one row per pack, server and tool. */
export function createMcpPinRepo(db: Db): McpPinStore {
  const p = sql.placeholder;
  const read = db
    .select(pinColumns)
    .from(mcpToolPins)
    .where(and(eq(mcpToolPins.pack, p('pack')), eq(mcpToolPins.server, p('server'))))
    .orderBy(asc(mcpToolPins.tool))
    .prepare();
  // Prepared once: a server's first listing may pin a thousand tools.
  const upsert = db
    .insert(mcpToolPins)
    .values({
      pack: p('pack'),
      server: p('server'),
      tool: p('tool'),
      description: p('description'),
      inputSchema: p('inputSchema'),
      readOnly: p('readOnly'),
      pinnedAt: p('pinnedAt'),
    })
    .onConflictDoUpdate({
      target: [mcpToolPins.pack, mcpToolPins.server, mcpToolPins.tool],
      set: {
        description: sql`excluded.description`,
        inputSchema: sql`excluded.input_schema`,
        readOnly: sql`excluded.read_only`,
        pinnedAt: sql`excluded.pinned_at`,
      },
    })
    .prepare();

  return {
    read(pack, server): ToolPin[] {
      return read.all({ pack, server });
    },

    write(pack, server, pins, now): void {
      if (pins.length === 0) return;
      db.transaction(() => {
        for (const pin of pins) upsert.run({ pack, server, ...pin, pinnedAt: now });
      });
    },
  };
}

/**
 * The pins as `doctor` sees them: read from a database opened read-only, never written (the
 * first listing is pinned by satchel, not by a check). A database from before the pins
 * (no table yet) has none.
 */
export function readOnlyPins(db: Db): McpPinStore {
  return {
    read(pack, server): ToolPin[] {
      try {
        return db
          .select(pinColumns)
          .from(mcpToolPins)
          .where(and(eq(mcpToolPins.pack, pack), eq(mcpToolPins.server, server)))
          .all();
      } catch (error) {
        if (/no such table/.test((error as Error).message)) return [];
        throw error;
      }
    },
    write() {},
  };
}
