import type { ToolPin } from '../store/mcp-pin-repo.ts';
import type { McpTool, PinChange } from './types.ts';

export type { McpPinStore, ToolPin } from '../store/mcp-pin-repo.ts';

/** At most this many changed schema paths are named: the rest are counted. */
const MAX_SCHEMA_KEYS = 10;

/** JSON with every object's keys sorted, so a schema sent in another key order pins equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}

export function pinOf(tool: McpTool): ToolPin {
  return {
    tool: tool.tool,
    description: tool.description,
    inputSchema: canonicalJson(tool.inputSchema),
    readOnly: tool.annotations?.readOnlyHint === true,
  };
}

/**
 * A listing against its server's pins: the tools that match their pin, and those that are
 * new or changed. A server with no pins yet is at its first listing: everything passes and
 * `first` says the listing is to be pinned. A pinned tool missing from the listing is no
 * concern here: it is simply not offered.
 */
export function comparePins(
  listing: readonly { tool: McpTool; pin: ToolPin }[],
  pins: readonly ToolPin[],
): { first: boolean; offered: McpTool[]; withheld: { tool: McpTool; change: PinChange }[] } {
  if (pins.length === 0)
    return { first: true, offered: listing.map((entry) => entry.tool), withheld: [] };
  const byName = new Map(pins.map((pin) => [pin.tool, pin]));
  const offered: McpTool[] = [];
  const withheld: { tool: McpTool; change: PinChange }[] = [];
  for (const { tool, pin } of listing) {
    const change = changeOf(byName.get(tool.tool), pin);
    if (change) withheld.push({ tool, change });
    else offered.push(tool);
  }
  return { first: false, offered, withheld };
}

/** How `now` differs from `pinned`, or undefined when it does not. */
export function changeOf(pinned: ToolPin | undefined, now: ToolPin): PinChange | undefined {
  if (!pinned) return { kind: 'added' };
  const descriptionChanged = pinned.description !== now.description;
  const schemaChanged = pinned.inputSchema !== now.inputSchema;
  // Either way counts: gaining the mark lets calls run unasked in a tainted turn; losing it
  // is harmless (calls ask again) but is withheld until trusted all the same, so that a
  // tool is offered exactly when it matches its pin, and the pin always says what runs.
  const effectChanged = pinned.readOnly !== now.readOnly;
  if (!descriptionChanged && !schemaChanged && !effectChanged) return undefined;
  return {
    kind: 'changed',
    ...(descriptionChanged
      ? { description: { from: pinned.description, to: now.description } }
      : {}),
    ...(schemaChanged
      ? { schemaKeys: changedPaths(JSON.parse(pinned.inputSchema), JSON.parse(now.inputSchema)) }
      : {}),
    ...(effectChanged ? { effect: { from: effectOf(pinned), to: effectOf(now) } } : {}),
  };
}

/** The effect a pinned tool's calls have (`mcp/pack-tools.ts` gives it to the turn). */
const effectOf = (pin: ToolPin) => (pin.readOnly ? 'read' : 'external');

/**
 * The paths (`properties.text.type`) at which two schemas differ, objects compared key by
 * key and anything else as a whole; at most MAX_SCHEMA_KEYS, then `… (N more)`.
 */
export function changedPaths(before: unknown, after: unknown): string[] {
  const paths: string[] = [];
  walk(before, after, '', paths);
  if (paths.length <= MAX_SCHEMA_KEYS) return paths;
  return [...paths.slice(0, MAX_SCHEMA_KEYS), `… (${paths.length - MAX_SCHEMA_KEYS} more)`];
}

function walk(before: unknown, after: unknown, at: string, paths: string[]): void {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(before[key], after[key], at ? `${at}.${key}` : key, paths);
    return;
  }
  if (canonicalJson(before) !== canonicalJson(after)) paths.push(at || '(the whole schema)');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
