/**
 * What of a reply still being written can be printed for good. A terminal cannot take back
 * what it printed, and the draft it is given is the plain text of Markdown rendered so far,
 * which changes where the Markdown is not finished: `**bo` shows its asterisks until the
 * closing pair arrives, a `|` line becomes a table row once the delimiter row follows, a
 * lone `-` may become a bullet or a rule.
 */

/** Characters that, left in the rendered text, may be Markdown that is not finished yet. */
const OPEN_MARKUP = /[*_`~[\]|\\<]/;
/** A last line shorter than this may still become a list item, a rule or an underline. */
const MIN_LAST_LINE = 3;
/** A final text continues a printed draft's tail only if they overlap by this much. */
const MIN_OVERLAP = 8;

/**
 * The prefix of `text` (a draft's plain text) that later drafts will not change: finished
 * paragraphs, and of the paragraph being written the part before any open markup, up to its
 * last whole word, unless its last line is too short to tell what it will become.
 */
export function stablePrefix(text: string): string {
  const paragraphBreak = text.lastIndexOf('\n\n');
  const open = paragraphBreak < 0 ? 0 : paragraphBreak + 2;
  const markup = text.slice(open).search(OPEN_MARKUP);
  const settled = markup < 0 ? text : text.slice(0, open + markup);
  const lineStart = settled.lastIndexOf('\n') + 1;
  const lastLine = settled.slice(lineStart);
  if (lastLine.trim().length < MIN_LAST_LINE) return settled.slice(0, lineStart);
  // The last word may still grow (into a link, whose target is then shown beside it: a
  // `www.` link grows in both places, so a target in parentheses holds its link back too).
  const words = [...lastLine.matchAll(/\S+/g)];
  const held = words.at(-1)?.[0].startsWith('(') ? 2 : 1;
  const firstHeld = words.at(-held);
  return settled.slice(0, lineStart + (firstHeld?.index ?? 0));
}

/**
 * What to print of `final` after `printed` was printed from drafts, or undefined when the
 * final text does not continue it. It continues it when it starts with it, or when the
 * printed tail is the start of the final text (the model wrote something, called a tool,
 * then began the answer, and the drafts showed both).
 */
export function continuation(printed: string, final: string): string | undefined {
  if (final.startsWith(printed)) return final.slice(printed.length);
  const longest = Math.min(printed.length, final.length);
  for (let k = longest; k >= Math.min(final.length, MIN_OVERLAP); k--)
    if (printed.endsWith(final.slice(0, k))) return final.slice(k);
  return undefined;
}
