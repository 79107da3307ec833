/**
 * Characters that show nothing or change how what follows shows (SPEC §17): format
 * characters (`\p{Cf}`: bidi controls such as U+202E, zero-width spaces and joiners, U+00AD,
 * U+2060, U+FEFF, U+180E, tag characters), the other default-ignorables (Hangul fillers,
 * variation selectors, the whole tag block U+E0000–E007F), line and paragraph separators,
 * and control characters but the newline and the tab.
 */
const INVISIBLE =
  /[\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029\u{E0000}-\u{E007F}]|(?![\n\t])\p{Cc}/gu;

/** `text` with each invisible or direction character written as its code: `<U+202E>`. */
export function visibleCodes(text: string): string {
  return text.replace(INVISIBLE, (char) => {
    const code = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    return `<U+${code}>`;
  });
}

/**
 * `text` on one line, as a name or a label must be: as `visibleCodes`, with line breaks and
 * tabs written as codes too, so what a stranger typed cannot start a line of its own.
 */
export function oneLineCodes(text: string): string {
  return visibleCodes(text).replace(/[\n\t]/g, (c) => (c === '\n' ? '<U+000A>' : '<U+0009>'));
}
