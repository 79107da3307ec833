import Mustache from 'mustache';
import { escapeMarkdown } from '../outbound/compose.ts';
import type { ParamValue } from './actions.ts';

/**
 * An action's templates, filled by Mustache (logic-less: values, sections, inverted sections).
 * A reply is Markdown: a value shown with `{{value}}` has its Markdown characters escaped, so a
 * word with `*`, `_` or `<` in it shows as written (Mustache's own HTML escaping would show
 * `&lt;`); `{{{value}}}` is taken as Markdown. Labels and parameters are plain text. Partials
 * are not used (a pack has none).
 */

/** What the templates read: names to values, and `rows` (a list of such). */
export type View = Record<string, unknown>;

const asText = (value: unknown): string => String(value);

/** `template` filled from `view`, its values escaped for Markdown. */
export function renderMarkdown(template: string, view: View): string {
  return Mustache.render(template, view, {}, { escape: (value) => escapeMarkdown(asText(value)) });
}

/** `template` filled from `view` as plain text (a button's label, a parameter). */
export function renderPlain(template: string, view: View): string {
  return Mustache.render(template, view, {}, { escape: asText });
}

/** The value `name` (`id`, `card.id`) has in `view`, as a Mustache tag would find it. */
export function lookup(view: View, name: string): unknown {
  return new Mustache.Context(view).lookup(name);
}

/** Whether a value counts as set, as a Mustache section reads it (not empty, 0 or false). */
export const isSet = (value: unknown): boolean =>
  Array.isArray(value) ? value.length > 0 : Boolean(value);

/** `{{name}}` and nothing else: the parameter takes the value as it is. */
const ONE_TAG = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}$/;

/**
 * A button's parameter: a number, boolean or null as written; a string filled from `view`,
 * except that a string that is one tag (`"{{id}}"`) keeps the value's own type, so an id
 * stays a number (an absent value is null).
 */
export function paramValue(written: ParamValue, view: View): ParamValue {
  if (typeof written !== 'string') return written;
  const tag = ONE_TAG.exec(written);
  if (!tag) return renderPlain(written, view);
  const value = lookup(view, tag[1]!);
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string')
    return value;
  return typeof value === 'bigint' ? value.toString() : renderPlain(written, view);
}

/**
 * The names a template reads (the first part of `card.id`; `.` left out), or why it does not
 * parse. Partials are refused: an action has none to include.
 */
export function templateNames(template: string): { names: string[] } | { problem: string } {
  let tokens: unknown[];
  try {
    tokens = Mustache.parse(template) as unknown[];
  } catch (error) {
    return { problem: `does not parse as a Mustache template: ${(error as Error).message}` };
  }
  const names = new Set<string>();
  const walk = (list: unknown[]): string | undefined => {
    for (const token of list as [string, string, number, number, unknown[]?][]) {
      const [type, value, , , inner] = token;
      if (type === '>') return `includes a partial ({{> ${value}}}), which actions do not have`;
      if (['name', '&', '#', '^'].includes(type) && value !== '.') names.add(value.split('.')[0]!);
      const problem = inner ? walk(inner) : undefined;
      if (problem) return problem;
    }
    return undefined;
  };
  const problem = walk(tokens);
  return problem ? { problem } : { names: [...names] };
}
