import { createHash } from 'node:crypto';

/** What OpenAI, Gemini and Groq all accept as a function name. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
const MAX = 64;
const HASH_CHARS = 8;

/**
 * The name a pack's MCP tool reaches the providers under: `<server>__<tool>`, every other
 * character than letters, digits, `_` and `-` as `_`, a leading digit or `-` prefixed with
 * `_`, and a name longer than 64 characters cut with a short hash of the full name at its
 * end (so two long names that share a start stay apart).
 */
export function providerToolName(server: string, tool: string): string {
  const full = `${server}__${tool}`;
  let name = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!/^[a-zA-Z_]/.test(name)) name = `_${name}`;
  if (name.length <= MAX) return name;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_CHARS);
  return `${name.slice(0, MAX - HASH_CHARS - 1)}_${hash}`;
}

export interface NamedTool {
  server: string;
  tool: string;
}

/**
 * Names for a pack's MCP tools, and those refused: a tool whose provider name another tool
 * (a core tool, or an earlier MCP tool) already has is left out, and `clashes` says with
 * which, for the log and `doctor`.
 */
export function assignToolNames<T extends NamedTool>(
  tools: readonly T[],
  taken: Iterable<string>,
): { named: (T & { name: string })[]; clashes: { tool: T; name: string; with: string }[] } {
  const owners = new Map<string, string>([...taken].map((n) => [n, `core tool ${n}`]));
  const named: (T & { name: string })[] = [];
  const clashes: { tool: T; name: string; with: string }[] = [];
  for (const tool of tools) {
    const name = providerToolName(tool.server, tool.tool);
    const owner = owners.get(name);
    if (owner) {
      clashes.push({ tool, name, with: owner });
      continue;
    }
    owners.set(name, `${tool.server}/${tool.tool}`);
    named.push({ ...tool, name });
  }
  return { named, clashes };
}

/** The first names, then how many more: a log message naming tools stays readable. */
export function namesOf(names: readonly string[], shown = 20): string {
  const more = names.length - shown;
  return more > 0 ? `${names.slice(0, shown).join(', ')} and ${more} more` : names.join(', ');
}
