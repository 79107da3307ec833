/**
 * The machine-readable instructions an attacker plants for the obeying model (obeying-model.ts):
 *
 *   DO[id] tool_name <base64url of the JSON arguments> [WHEN next] [VIA summary|flush]
 *
 * The arguments travel as base64url so that no page reader, JSON escaping, Markdown or
 * neutraliser changes them on the way. `WHEN next`: act only in a turn after the one where it
 * was first seen. `VIA`: which compaction request carries it on (default both).
 *
 * A string argument may name what an earlier order's call returned: `{{cell:ID}}` is its first
 * value (a db_query result's first cell, else its whole text), `{{hex:ID}}` that value in
 * upper-case hex, and `{{digits:ID}}` makes one call per hex digit of it, in order.
 */

export interface Order {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  when?: 'next';
  via?: 'summary' | 'flush';
}

/** An order as a line of text. */
export function plant(order: Order): string {
  const args = Buffer.from(JSON.stringify(order.args)).toString('base64url');
  const when = order.when ? ` WHEN ${order.when}` : '';
  const via = order.via ? ` VIA ${order.via}` : '';
  return `DO[${order.id}] ${order.tool} ${args}${when}${via}`;
}

/** Orders as lines. */
export const planted = (orders: readonly Order[]): string => orders.map(plant).join('\n');

const LINE =
  /DO\[([A-Za-z0-9_-]+)\] ([A-Za-z0-9_]+) ([A-Za-z0-9_-]+)( WHEN next)?( VIA (?:summary|flush))?/g;

/** A planted order as found in a text, with the line as it was written. */
export interface FoundOrder extends Order {
  line: string;
}

/** Every well-formed order in `text`, in order of appearance. */
export function ordersIn(text: string): FoundOrder[] {
  const found: FoundOrder[] = [];
  for (const m of text.matchAll(LINE)) {
    let args: unknown;
    try {
      args = JSON.parse(Buffer.from(m[3] ?? '', 'base64url').toString('utf8'));
    } catch {
      continue;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) continue;
    const via = m[5]?.trim().split(' ')[1] as Order['via'] | undefined;
    found.push({
      id: m[1] ?? '',
      tool: m[2] ?? '',
      args: args as Record<string, unknown>,
      ...(m[4] ? { when: 'next' as const } : {}),
      ...(via ? { via } : {}),
      line: m[0],
    });
  }
  return found;
}

const PLACEHOLDER = /\{\{(cell|hex|digits):([A-Za-z0-9_-]+)\}\}/g;

/**
 * The calls an order makes, given what earlier orders' calls returned (`resultOf(id)`, by
 * order id); undefined while a result it needs is missing.
 */
export function callsOf(
  order: Order,
  resultOf: (id: string) => string | undefined,
): Record<string, unknown>[] | undefined {
  const json = JSON.stringify(order.args);
  const needed = [...json.matchAll(PLACEHOLDER)];
  const values = new Map<string, string>();
  for (const [, , id] of needed) {
    const result = id === undefined ? undefined : resultOf(id);
    if (result === undefined) return undefined;
    values.set(id!, firstValue(result));
  }
  const digits = needed.find((m) => m[1] === 'digits');
  const count = digits ? hex(values.get(digits[2]!)!).length : 1;
  const calls: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    const filled = json.replace(PLACEHOLDER, (_all, kind: string, id: string) => {
      const value = values.get(id)!;
      if (kind === 'cell') return jsonInner(value);
      if (kind === 'hex') return hex(value);
      return hex(value)[n] ?? '';
    });
    calls.push(JSON.parse(filled) as Record<string, unknown>);
  }
  return calls;
}

/** A value's bytes in upper-case hex, as SQLite's hex() writes them. */
export const hex = (value: string): string =>
  Buffer.from(value, 'utf8').toString('hex').toUpperCase();

/** A db_query result's first cell; any other result as its text. */
function firstValue(result: string): string {
  try {
    const parsed = JSON.parse(result) as { rows?: unknown[] };
    const row = parsed.rows?.[0];
    const cell = Array.isArray(row)
      ? row[0]
      : row && typeof row === 'object'
        ? Object.values(row)[0]
        : undefined;
    if (cell !== undefined && cell !== null) return String(cell);
  } catch {
    // not JSON: the text itself
  }
  return result;
}

/** `value` as it goes inside a JSON string. */
const jsonInner = (value: string): string => JSON.stringify(value).slice(1, -1);
