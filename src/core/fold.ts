import { createRequire } from 'node:module';

/**
 * The folded view of a text (SPEC §17): what it reads as to someone who ignores width,
 * case, invisible characters, spacing and look-alike letters. Each code point folds on its
 * own: NFKC (as NFKD: fullwidth `＜` is `<`, `𝐈` is `I`) with combining marks, format
 * characters (`\p{Cf}`: zero-width spaces, soft hyphens, joiners), other default-ignorable
 * and control characters and whitespace removed; then its Unicode confusable skeleton
 * (TR39, the data of the `unhomoglyph` package) in any case.
 *
 * "In any case" has two readings, and a text is read both ways where they differ:
 * skeleton first (Cyrillic `Т` is `T` is `t`; `M` is `m` is `rn`), or lower case first
 * (Greek `Η` is `η`, which TR39 reads as `n`). Two more steps make both coarser: `i` and `l`
 * are one letter (TR39 maps `I`, `1` and `|` to `l`; lower case maps `I` to `i`), and the
 * separators `_`, `-` and DeepSeek's `▁` are dropped, so `end_untrusted` is `end untrusted`.
 * Vertical bars fold to `|`.
 *
 * A view is for finding things, never for showing: `from[i]` is the index (UTF-16) in the
 * original text of the code point that folded character `i` came from.
 */
export interface FoldedView {
  text: string;
  from: Uint32Array;
}

/** Skeleton first (0) or lower case first (1). */
type Reading = 0 | 1;

/** Vertical lines, once NFKC made `｜` a `|`: kept apart from `l` so `<|…|>` can be found. */
const BARS = new Set([...'|∣ǀ׀⏽￨│┃❘▕▏⎸⎹']);
/** Dropped before and after the skeleton: nothing a reader would see as a letter or a mark. */
const IGNORED = /[\p{M}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\p{White_Space}_\-▁]/gu;

// Memos of pure functions, filled as characters are met (nothing is worked out at import):
// folding a megabyte character by character through NFKD and the skeleton would take a
// second; through these tables it takes milliseconds.
let skeletons: Record<string, string> | undefined;
/** Per BMP code unit and reading: UNKNOWN, EMPTY, the one unit it folds to, or MANY. */
const units: [Int32Array | undefined, Int32Array | undefined] = [undefined, undefined];
/** Per BMP code unit: 1 when the two readings fold it differently. */
let differs: Uint8Array | undefined;
const UNKNOWN = -1;
const EMPTY = -2;
const MANY = -3;
const many = [new Map<number, string>(), new Map<number, string>()] as const;
const astral = new Map<number, readonly [string, string]>();
/** Astral code points (emoji, math letters) are kept once worked out, up to this many. */
const ASTRAL_LIMIT = 65_536;

/** TR39's confusable mapping, loaded on first use (100 kB of JSON). */
function skeletonData(): Record<string, string> {
  skeletons ??= createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
  return skeletons;
}

function skeleton(text: string): string {
  const data = skeletonData();
  let out = '';
  for (const char of text) out += BARS.has(char) ? '|' : (data[char] ?? char);
  return out.normalize('NFD').replace(IGNORED, '');
}

/** How one code point reads in the folded view (often '' or itself). */
function foldCodePoint(char: string, reading: Reading): string {
  const bare = char.normalize('NFKD').replace(IGNORED, '');
  const lower = (text: string) => text.toLowerCase();
  const folded = reading === 0 ? skeleton(lower(skeleton(bare))) : lower(skeleton(lower(bare)));
  return lower(folded).replaceAll('l', 'i');
}

/** The folding of BMP code unit `code` in `reading`: its table entry, worked out once. */
function unitFolding(code: number, reading: Reading): number {
  const table = units[reading] ?? new Int32Array(0x10000).fill(UNKNOWN);
  units[reading] = table;
  let entry = table[code] as number;
  if (entry === UNKNOWN) {
    const folded = foldCodePoint(String.fromCharCode(code), reading);
    entry = folded.length === 0 ? EMPTY : folded.length === 1 ? folded.charCodeAt(0) : MANY;
    if (entry === MANY) many[reading].set(code, folded);
    table[code] = entry;
  }
  return entry;
}

function unitDiffers(code: number): boolean {
  differs ??= new Uint8Array(0x10000).fill(2);
  if (differs[code] === 2) {
    const [a, b] = [unitFolding(code, 0), unitFolding(code, 1)];
    const same = a === b && (a !== MANY || many[0].get(code) === many[1].get(code));
    differs[code] = same ? 0 : 1;
  }
  return differs[code] === 1;
}

function astralFolding(code: number): readonly [string, string] {
  let folded = astral.get(code);
  if (folded === undefined) {
    if (astral.size >= ASTRAL_LIMIT) astral.clear();
    const char = String.fromCodePoint(code);
    folded = [foldCodePoint(char, 0), foldCodePoint(char, 1)];
    astral.set(code, folded);
  }
  return folded;
}

/** The foldings of `char` (one code point) in both readings; a lone surrogate folds to ''. */
export function foldChar(char: string): readonly [string, string] {
  const code = char.codePointAt(0) ?? 0;
  if (code > 0xffff) return astralFolding(code);
  if (code >= 0xd800 && code <= 0xdfff) return ['', ''];
  const one = (reading: Reading) => {
    const entry = unitFolding(code, reading);
    if (entry === EMPTY) return '';
    return entry === MANY ? (many[reading].get(code) as string) : String.fromCharCode(entry);
  };
  return [one(0), one(1)];
}

/**
 * The folded views of `text`: the skeleton-first one, and the lower-case-first one when a
 * character of `text` reads differently in it. Each is one pass over the code units into
 * typed arrays (a megabyte folds in about as long as it takes to copy it).
 */
export function foldedViews(text: string): FoldedView[] {
  const first = foldedView(text, 0);
  return first.differs ? [first.view, foldedView(text, 1).view] : [first.view];
}

function foldedView(text: string, reading: Reading) {
  const out = new Growing(text.length);
  let differ = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) {
      const entry = unitFolding(code, reading);
      if (entry >= 0) out.push(entry, i);
      else if (entry === MANY) out.pushString(many[reading].get(code) as string, i);
      if (reading === 0 && code >= 128 && !differ) differ = unitDiffers(code);
    } else if (code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      const folded = astralFolding(text.codePointAt(i) as number);
      out.pushString(folded[reading], i);
      differ ||= folded[0] !== folded[1];
      i++;
    }
  }
  return { view: out.view(), differs: differ };
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Code units (as UTF-16LE bytes, whatever the machine's byte order) and where each came from,
 * in arrays that double when full.
 */
class Growing {
  private bytes: Uint8Array;
  private from: Uint32Array;
  private length = 0;

  constructor(capacity: number) {
    this.from = new Uint32Array(Math.max(16, capacity));
    this.bytes = new Uint8Array(this.from.length * 2);
  }

  push(unit: number, from: number): void {
    if (this.length === this.from.length) this.grow();
    this.bytes[2 * this.length] = unit & 0xff;
    this.bytes[2 * this.length + 1] = unit >> 8;
    this.from[this.length++] = from;
  }

  pushString(text: string, from: number): void {
    for (let k = 0; k < text.length; k++) this.push(text.charCodeAt(k), from);
  }

  view(): FoldedView {
    const text = UTF16.decode(this.bytes.subarray(0, 2 * this.length));
    return { text, from: this.from.subarray(0, this.length) };
  }

  private grow(): void {
    const from = new Uint32Array(this.from.length * 2);
    from.set(this.from);
    const bytes = new Uint8Array(from.length * 2);
    bytes.set(this.bytes);
    this.from = from;
    this.bytes = bytes;
  }
}

/** Keeps a leading U+FEFF (none is pushed: it folds to nothing), so lengths stay equal. */
const UTF16 = new TextDecoder('utf-16le', { ignoreBOM: true });
