import type { TokenizerExtension, Tokens } from 'marked';

/** A `$…$` (inline) or `$$…$$` (display) formula as the lexer reads it: its TeX in `text`. */
export interface MathToken extends Tokens.Generic {
  type: 'math';
  raw: string;
  text: string;
  display: boolean;
}

/**
 * `$…$` or `$$…$$` within a line: no space inside either end and no unescaped `$` inside (so
 * "$5 and $10" stays text), and a space, a punctuation mark or the end of the line right
 * after it (marked-katex-extension's rules, a little stricter, without its KaTeX: the channel
 * typesets the TeX itself).
 */
const INLINE = /^(\${1,2})(?![\s$])((?:\\.|[^\\\n$])*?(?:\\.|[^\\\n$\s]))\1(?=[\s?!.,:;)]|$)/;
/** `$$` alone on a line, the formula's lines, `$$` alone on a line. */
const BLOCK = /^(\${1,2})\n((?:\\[\s\S]|[^\\])+?)\n\1(?:\n|$)/;

const token = (match: RegExpMatchArray, display: boolean): MathToken => ({
  type: 'math',
  raw: match[0],
  text: match[2]!.trim(),
  display,
});

/** Where in `src` an inline formula may start: a `$` at the start or after a space. */
function inlineStart(src: string): number | undefined {
  for (let at = src.indexOf('$'); at !== -1; at = src.indexOf('$', at + 1)) {
    if (at > 0 && !/\s/.test(src[at - 1]!)) continue;
    if (INLINE.test(src.slice(at))) return at;
  }
  return undefined;
}

/**
 * marked extensions that read TeX formulas as `math` tokens. Only a channel that typesets
 * math lexes with them: for every other the dollars stay text, exactly as before.
 */
export const mathExtensions: TokenizerExtension[] = [
  {
    name: 'mathBlock',
    level: 'block',
    start: (src) => {
      const at = src.search(/^\$\$?\n/m);
      return at === -1 ? undefined : at;
    },
    tokenizer(src) {
      const match = src.match(BLOCK);
      return match ? token(match, true) : undefined;
    },
  },
  {
    name: 'mathInline',
    level: 'inline',
    start: inlineStart,
    tokenizer(src) {
      const match = src.match(INLINE);
      return match ? token(match, match[1]!.length === 2) : undefined;
    },
  },
];

/** The formula a token is, when it is one (`math` is not among marked's own token types). */
export const mathOf = (token: { type: string }): MathToken | undefined =>
  token.type === 'math' ? (token as MathToken) : undefined;
