import { createHash } from 'node:crypto';

/**
 * The one codec for inline-button data (what a press sends back; at most 64 bytes):
 * - `pack:<name>` — the pack picker;
 * - `ask:<question id>:<option>` — an `ask_user` answer;
 * - `say:<label>` — a `send_message` button: pressing it sends its label as if typed;
 * - `model:<provider:model>` — a `/model` pick (`model:default` goes back to the default); a
 *   reference too long for the data goes as `model:#` and a hash of it (see modelData);
 * - `act:<keyboard id>:<button>` — a pack action's button: what it runs is stored under the
 *   keyboard's id (packs/action-keyboards.ts), so its parameters need not fit here.
 */
export type ButtonData =
  | { type: 'pack'; pack: string }
  | { type: 'model'; ref: string }
  | { type: 'ask'; question: string; option: number }
  | { type: 'say'; text: string }
  | { type: 'action'; keyboard: string; button: number };

const PACK = 'pack:';
const ASK = 'ask:';
const SAY = 'say:';
const MODEL = 'model:';
const ACTION = 'act:';
/** The most button data a channel takes, in UTF-8 bytes. */
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

/** Encodes a button; a `say` label is cut to fit (see sayData). */
export function encodeButton(button: ButtonData): string {
  switch (button.type) {
    case 'pack':
      return `${PACK}${button.pack}`;
    case 'ask':
      return `${ASK}${button.question}:${button.option}`;
    case 'say':
      return sayData(button.text);
    case 'model':
      return modelData(button.ref);
    case 'action':
      return `${ACTION}${button.keyboard}:${button.button}`;
  }
}

/**
 * A `/model` button's data: `model:<ref>`, or for a reference that does not fit in 64 bytes
 * `model:#<hash>`. A press is matched by encoding each offered model again and comparing.
 */
function modelData(ref: string): string {
  const data = `${MODEL}${ref}`;
  if (Buffer.byteLength(data) <= MAX_DATA_BYTES) return data;
  return `${MODEL}#${createHash('sha256').update(ref).digest('base64url').slice(0, 22)}`;
}

/** What a button's data stands for, or undefined for data satchel did not make. */
export function decodeButton(data: string): ButtonData | undefined {
  if (data.startsWith(PACK)) return { type: 'pack', pack: data.slice(PACK.length) };
  if (data.startsWith(SAY)) return { type: 'say', text: data.slice(SAY.length) };
  if (data.startsWith(MODEL)) return { type: 'model', ref: data.slice(MODEL.length) };
  if (data.startsWith(ASK)) {
    const [id, index] = idAndIndex(data.slice(ASK.length)) ?? [];
    return id === undefined ? undefined : { type: 'ask', question: id, option: index! };
  }
  if (data.startsWith(ACTION)) {
    const [id, index] = idAndIndex(data.slice(ACTION.length)) ?? [];
    return id === undefined ? undefined : { type: 'action', keyboard: id, button: index! };
  }
  return undefined;
}

/** `<id>:<n>` with a non-empty id and a whole n ≥ 0, or undefined. */
function idAndIndex(rest: string): [string, number] | undefined {
  const [id, n] = rest.split(':');
  const index = Number(n);
  if (!id || n === '' || !Number.isInteger(index) || index < 0) return undefined;
  return [id, index];
}
