/** Buttons sent by `send_message`: pressing one sends its label as if the user typed it. */
const SAY = 'say:';
/** Telegram's limit for callback data, in UTF-8 bytes. */
const MAX_DATA_BYTES = 64;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Callback data for a label, at most 64 UTF-8 bytes. A long label is cut between
 * characters as the user sees them (an emoji stays whole), or between code points when
 * even the first character does not fit; never inside a surrogate pair, so the data is
 * always valid UTF-8. A lone surrogate in the label becomes U+FFFD.
 */
export function sayData(label: string): string {
  const text = wellFormed(label);
  let data = SAY;
  for (const { segment } of graphemes.segment(text)) {
    if (Buffer.byteLength(data + segment) > MAX_DATA_BYTES) {
      return data === SAY ? codePointsThatFit(data, segment) : data;
    }
    data += segment;
  }
  return data;
}

/** `data` followed by as many whole code points of `rest` as fit. */
function codePointsThatFit(data: string, rest: string): string {
  let out = data;
  for (const codePoint of rest) {
    if (Buffer.byteLength(out + codePoint) > MAX_DATA_BYTES) break;
    out += codePoint;
  }
  return out;
}

/** Replaces unpaired surrogates, which have no UTF-8 encoding, with U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/** The label a `say:` button stands for, or undefined for other buttons. */
export function saidText(data: string): string | undefined {
  return data.startsWith(SAY) ? data.slice(SAY.length) : undefined;
}
