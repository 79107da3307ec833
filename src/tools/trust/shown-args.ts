import { redactSecretShapes } from '../../core/redact.ts';

const VALUE_CHARS = 160;
const TOTAL_CHARS = 600;

/**
 * A call's arguments as a person reads them on a phone: one `name: value` line each, long
 * values shortened, secret shapes redacted, never a wall of JSON.
 */
export function shownArguments(args: unknown): string {
  const entries =
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? Object.entries(args as Record<string, unknown>)
      : [['arguments', args] as const];
  const lines = entries.map(
    ([name, value]) => `${name}: ${short(redactSecretShapes(valueText(value)), VALUE_CHARS)}`,
  );
  return short(lines.join('\n'), TOTAL_CHARS) || '(no arguments)';
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\s+/g, ' ');
  return JSON.stringify(value) ?? String(value);
}

function short(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
