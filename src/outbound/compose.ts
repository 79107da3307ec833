import type { OutboundText, Renderer, TextPart } from '../core/ports.ts';

export type { OutboundText, TextPart } from '../core/ports.ts';

/** What the user sees when the model's answer has nothing to show. */
export const NO_ANSWER = '(no answer)';
/** ASCII punctuation, each of which a backslash makes literal in Markdown. */
const MARKDOWN_PUNCTUATION = /[!-/:-@[-`{-~]/g;

export const markdown = (text: string): OutboundText => ({ text, format: 'markdown' });
/** Text shown literally inside Markdown (a name with `*` or `_` in it). */
export const escapeMarkdown = (text: string): string =>
  text.replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`);
export const plain = (text: string): OutboundText => ({ text, format: 'plain' });

/**
 * The parts of the model's answer as `render` shows it, `suffix` (Markdown) after it: the
 * answer's Markdown, unless it renders to nothing visible (`#`, `> `, an empty code block, a
 * link with a blank label): then its literal text, and when even that shows nothing,
 * NO_ANSWER. An answer never silently becomes no message. Rendered once when it shows as
 * written.
 */
export function answerParts(render: Renderer, text: string, suffix = ''): TextPart[] {
  const parts = render.text(markdown(text));
  if (parts.length > 0) return suffix ? render.text(markdown(text + suffix)) : parts;
  const literal = escapeMarkdown(text);
  const shown = render.text(markdown(literal)).length > 0 ? literal : NO_ANSWER;
  return render.text(markdown(shown + suffix));
}
