import { redactSecretShapes } from '../../core/redact.ts';
import { visibleCodes } from './visible-codes.ts';

/**
 * The arguments shown in full, however long (SPEC §17): what a memory write would keep (the
 * tool's `text`; the memory flush asks with `content`) and what a job would run. A question
 * too long for one message shows them apart (approval.ts).
 */
const FULL_TEXT: Readonly<Record<string, readonly string[]>> = {
  memory: ['text', 'content', 'old', 'new'],
  schedule: ['prompt'],
};

/** Room for any other value, its note of what was left out included. */
const VALUE_CHARS = 160;
/** How much of a value shown in full apart the question itself quotes. */
const HEAD_CHARS = 120;
const NAME_CHARS = 60;
/** A URL's scheme and authority (user, host, port): never cut. */
const AUTHORITY = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#]*/gi;
const WHOLE_URL = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]*\S*$/i;

/** A value the question shows in full elsewhere: its name and its text. */
export interface ApartText {
  name: string;
  text: string;
}

/**
 * A call's arguments as a person reads them on a phone: one `name: value` line each (a
 * multi-line text below its name, indented), secret shapes redacted, invisible and direction
 * characters as `<U+202E>`. A memory write's text and a job's prompt are shown whole; other
 * long values are shortened with a note of how much was left out, never inside a URL's host.
 */
export function shownArguments(args: unknown, tool = ''): string {
  return shownLines(args, tool, false).text;
}

/**
 * The same lines for a question too long for one message: the values `FULL_TEXT` names are
 * quoted at their start there, and returned in `apart` to be shown whole before it.
 */
export function shownArgumentsApart(args: unknown, tool: string) {
  return shownLines(args, tool, true);
}

function shownLines(args: unknown, tool: string, apart: boolean) {
  const entries =
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? Object.entries(args as Record<string, unknown>)
      : [['arguments', args] as const];
  const full = FULL_TEXT[tool] ?? [];
  const aside: ApartText[] = [];
  const lines = entries.map(([name, value]) => {
    const label = shorten(name, NAME_CHARS);
    const raw = redactSecretShapes(valueText(value));
    if (!full.includes(name)) return `${label}: ${shorten(collapse(raw), VALUE_CHARS)}`;
    if (!apart || raw.length <= HEAD_CHARS) return fullLine(label, raw);
    aside.push({ name: label, text: raw });
    return `${label}: ${shorten(collapse(raw), HEAD_CHARS, ', in full above')}`;
  });
  return { text: lines.join('\n') || '(no arguments)', apart: aside };
}

/** A value shown whole: on its line, or below it, each line indented, when it has several. */
function fullLine(label: string, raw: string): string {
  const text = visibleCodes(raw);
  return text.includes('\n') ? `${label}:\n${text.replace(/^/gm, '  ')}` : `${label}: ${text}`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

const collapse = (text: string) => text.replace(/[ \t\r\n]+/g, ' ');

/**
 * `raw` in at most about `max` characters: cut where a note of what was left out still fits,
 * but never inside a URL's scheme and authority (the whole host shows) nor a surrogate pair.
 * A URL with a host in another script also shows the host as it is looked up (punycode).
 */
function shorten(raw: string, max: number, where = ''): string {
  const host = punycodeHost(raw);
  if (raw.length <= max) return visibleCodes(raw) + host;
  let cut = Math.max(0, max - `…(${raw.length} more characters${where})`.length);
  for (const match of raw.matchAll(AUTHORITY)) {
    if (match.index >= cut) break;
    cut = Math.max(cut, match.index + match[0].length);
  }
  if (/[\ud800-\udbff]/.test(raw[cut - 1] ?? '')) cut--;
  if (cut >= raw.length) return visibleCodes(raw) + host;
  const note = `…(${raw.length - cut} more characters${where})`;
  return `${visibleCodes(raw.slice(0, cut))}${note}${host}`;
}

/** ` (host: xn--…)` for a URL whose host is not all ASCII; '' otherwise. */
function punycodeHost(raw: string): string {
  if (!WHOLE_URL.test(raw) || !/[^ -~]/.test(raw.match(AUTHORITY)?.[0] ?? '')) return '';
  try {
    return ` (host: ${new URL(raw).hostname})`;
  } catch {
    return '';
  }
}
