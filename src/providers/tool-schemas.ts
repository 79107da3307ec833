import type { Logger, ToolSpec } from '../core/ports.ts';

/**
 * Tool schemas as each provider accepts them (SPEC §13). An MCP server sends whatever JSON
 * Schema its library writes: `$schema`, `$defs` with `$ref`s, sometimes worse. OpenAI and
 * Groq take `$ref`/`$defs`; Gemini's `parametersJsonSchema` is treated as taking neither, so
 * for it local `$ref`s are inlined and `$defs`/`definitions` dropped. `$schema` goes for all
 * (a few bytes less, and Gemini refuses it). A tool whose schema cannot be converted, or
 * whose name fits no provider, is left out of the request with a warning: one odd server
 * never fails the turn.
 */

/** How a provider reads schemas: `openai` for OpenAI and Groq (the same wire format). */
export type SchemaDialect = 'openai' | 'gemini';

/** The rule every provider's function names meet (SPEC §13; MCP names are made to fit it). */
const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/**
 * Parts (objects) a converted schema may have: inlining `$ref`s that are used many times
 * can grow a schema exponentially, and a schema this large is no use to a model anyway.
 */
export const MAX_SCHEMA_PARTS = 2000;

/** Keywords whose value maps names (property names, definition names) to schemas. */
const NAMED_SCHEMAS = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);
/** Keywords whose value is data, not a schema: copied as it is. */
const DATA = new Set(['const', 'default', 'enum', 'examples']);

/** Why a schema cannot go to a provider; the message names the reason for the log. */
export class SchemaRefused extends Error {}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request's tools for a provider: converted, and without the ones that cannot be sent
 * (each reported to `refused` with the reason). Empty when none is left: the caller then
 * sends no tool list at all, as the APIs refuse an empty one.
 */
export function toolsForProvider(
  tools: readonly ToolSpec[] | undefined,
  dialect: SchemaDialect,
  refused: (tool: string, reason: string) => void,
): ToolSpec[] {
  const kept: ToolSpec[] = [];
  for (const tool of tools ?? []) {
    try {
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
        throw new SchemaRefused(
          'its name does not fit the providers (a letter or _ first, then letters, digits, _ or -, at most 64)',
        );
      kept.push({ ...tool, parameters: converted(tool.parameters, dialect) });
    } catch (error) {
      if (!(error instanceof SchemaRefused)) throw error;
      refused(tool.name, error.message);
    }
  }
  return kept;
}

/**
 * Conversions by schema object: a turn's tools keep their schema objects from one call to
 * the next (the registry's are cached per zod schema, a server's per listing), and
 * converting 30 MCP-sized schemas costs ~0.1-0.5 ms a call. Schemas are never mutated.
 */
const conversions = new WeakMap<object, Partial<Record<SchemaDialect, Json | SchemaRefused>>>();

function converted(schema: unknown, dialect: SchemaDialect): Json {
  // A server may send anything: only an object can be a key (and a schema).
  if (!isObject(schema)) return convertSchema(schema, dialect);
  const known = conversions.get(schema) ?? {};
  conversions.set(schema, known);
  let result = known[dialect];
  if (!result) {
    try {
      result = convertSchema(schema, dialect);
    } catch (error) {
      if (!(error instanceof SchemaRefused)) throw error;
      result = error;
    }
    known[dialect] = result;
  }
  if (result instanceof SchemaRefused) throw result;
  return result;
}

/** `schema` as the dialect takes it; throws SchemaRefused when it cannot be converted. */
function convertSchema(schema: unknown, dialect: SchemaDialect): Json {
  if (!isObject(schema)) throw new SchemaRefused('its schema is not a JSON object');
  const walk: Walk = { root: schema, inline: dialect === 'gemini', parts: 0 };
  // A $ref to the root ('#') from inside it is recursion.
  const out = convert(schema, walk, ['#']) as Json;
  if (out.type !== undefined && out.type !== 'object')
    throw new SchemaRefused(
      `its schema describes ${JSON.stringify(out.type)}, not an arguments object`,
    );
  return out;
}

interface Walk {
  root: Json;
  /** Resolve `$ref`s in place and drop the definitions (Gemini). */
  inline: boolean;
  parts: number;
}

/** A copy of `node` without `$schema` (and, inlining, with its `$ref`s resolved). */
function convert(node: unknown, walk: Walk, refs: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => convert(item, walk, refs));
  if (!isObject(node)) return node;
  if (++walk.parts > MAX_SCHEMA_PARTS)
    throw new SchemaRefused(
      `its schema has more than ${MAX_SCHEMA_PARTS} parts${walk.inline ? ' once its $refs are inlined' : ''}`,
    );
  if (walk.inline && typeof node.$ref === 'string') return inline(node, walk, refs);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (walk.inline && (key === '$defs' || key === 'definitions')) continue;
    if (DATA.has(key)) out[key] = value;
    else if (NAMED_SCHEMAS.has(key) && isObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, convert(schema, walk, refs)]),
      );
    else out[key] = convert(value, walk, refs);
  }
  return out;
}

/**
 * A `{$ref, ...siblings}` node as the schema it points to, converted, with the siblings
 * (usually a description) over it. Gemini takes no `allOf` to combine them otherwise.
 */
function inline(node: Json, walk: Walk, refs: readonly string[]): Json {
  const { $ref, ...siblings } = node;
  const ref = String($ref);
  if (refs.includes(ref)) throw new SchemaRefused(`its schema is recursive ($ref "${ref}")`);
  const target = resolve(walk.root, ref);
  // `true` is the schema that takes anything.
  const inlined = target === true ? {} : convert(target, walk, [...refs, ref]);
  if (!isObject(inlined))
    throw new SchemaRefused(`its $ref "${ref}" does not point to a schema object`);
  return { ...inlined, ...(convert(siblings, walk, refs) as Json) };
}

/** What a local `$ref` (`#/$defs/name`, a JSON pointer) points to in `root`. */
function resolve(root: Json, ref: string): unknown {
  if (!ref.startsWith('#/'))
    throw new SchemaRefused(`its $ref "${ref}" is not a reference inside the schema`);
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = pointerKey(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!(isObject(at) || Array.isArray(at)) || !Object.hasOwn(at, key))
      throw new SchemaRefused(`its $ref "${ref}" points to nothing`);
    at = (at as Json)[key];
  }
  return at;
}

/** A pointer segment as written in a URI fragment (`%24defs`), or as it is. */
function pointerKey(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // a lone % is a character of the name
  }
}

/**
 * Reports a tool left out of a model's requests as a `tool_schema_refused` warning, once
 * per tool and reason: the same tool is left out again on every call of every turn.
 */
export function refusalLog(
  log: Logger | undefined,
  provider: string,
  model: string,
): (tool: string, reason: string) => void {
  const told = new Set<string>();
  return (tool, reason) => {
    const key = `${tool}\n${reason}`;
    if (told.has(key)) return;
    told.add(key);
    log?.warn(
      { event: 'tool_schema_refused', provider, model, tool, reason },
      `tool ${tool} left out of requests to ${provider}: ${reason}`,
    );
  };
}
