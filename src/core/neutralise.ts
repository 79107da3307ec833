import { type FoldedView, foldChar, foldedViews } from './fold.ts';

/**
 * What may not appear inside untrusted content (SPEC §17), written as the models' templates
 * spell it and searched for in the folded view (fold.ts), so `＜＜end untrusted＞＞`,
 * `<<end_untrusted>>`, `<<unt\u200brusted`, Cyrillic `е` and `[inst]` are all found. A `/`
 * after the first bracket (`[/INST]`, `</tool_call>`) is the closing form of each.
 */
const MARKERS = ['<<untrusted', '<<end untrusted>>', '<<end untrusted'];
/** ChatML, Llama 3, Phi and DeepSeek's `<｜User｜>` family (its bars are fullwidth). */
const BARRED = [
  'im_start',
  'im_end',
  'im_sep',
  'endoftext',
  'begin_of_text',
  'end_of_text',
  'start_header_id',
  'end_header_id',
  'eot_id',
  'eom_id',
  'python_tag',
  'system',
  'user',
  'assistant',
  'end',
  'begin▁of▁sentence',
  'end▁of▁sentence',
  'tool▁calls▁begin',
  'tool▁calls▁end',
  'tool▁call▁begin',
  'tool▁call▁end',
  'tool▁sep',
  'tool▁outputs▁begin',
  'tool▁outputs▁end',
  'tool▁output▁begin',
  'tool▁output▁end',
];
/** Gemma, Qwen and Hermes (`<tool_call>`), and the sentence markers `<s>` `</s>`. */
const ANGLED = [
  'start_of_turn',
  'end_of_turn',
  'bos',
  'eos',
  'start_of_image',
  'end_of_image',
  'tool_call',
  'tool_response',
  's',
];
/** Llama 2 and Mistral. */
const SQUARED = ['INST', 'SYS', 'SYSTEM_PROMPT', 'TOOL_CALLS', 'AVAILABLE_TOOLS', 'TOOL_RESULTS'];

/** A folded word as a pattern: `i` and a bar read alike (TR39 folds `|` and `I` to `l`). */
const word = (text: string): string =>
  [...[...text].map((c) => foldChar(c)[0]).join('')]
    .map((c) => (c === 'i' || c === '|' ? '[i|]' : c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')))
    .join('');
const anyOf = (words: string[]) => `(?:${words.map(word).join('|')})`;

let tokens: RegExp | undefined;

/** Every token above, and any `<|…|>` with real bars, as one pattern over folded text. */
function tokenPattern(): RegExp {
  tokens ??= new RegExp(
    [
      anyOf(MARKERS),
      `<[i|]${anyOf(BARRED)}[i|]>`,
      '<\\|[^|<>]{0,40}\\|>',
      `<\\/?${anyOf(ANGLED)}>`,
      `\\[\\/?${anyOf(SQUARED)}\\]`,
      `<<\\/?${word('SYS')}>>`,
    ].join('|'),
    'g',
  );
  return tokens;
}

/**
 * What a bracket becomes: a look-alike that folds to none of `<>[]|` (TR39 maps `‹` to `<`
 * and NFKC maps `［` to `[`, so neither would do; `⟨` folds to `❬`, `⟦` to itself).
 */
const INERT: Record<string, string> = { '<': '⟨', '>': '⟩', '[': '⟦', ']': '⟧' };
const isBracket = (unit: number) => unit === 60 || unit === 62 || unit === 91 || unit === 93;
/** Rounds of search and replace; each removes brackets, so two settle any real text. */
const MAX_ROUNDS = 8;

/**
 * `text` with every marker and control token made inert: the brackets of each (whatever
 * look-alike spelled them) become `⟨⟩⟦⟧`, the letters stay readable. Text without them comes
 * back byte for byte; neutralising twice changes nothing more. Linear in the text's length:
 * one folded view per round, and a round after the first only where the first found tokens.
 */
export function neutralise(text: string): string {
  let out = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const brackets = tokenBrackets(out);
    if (brackets.length === 0) return out;
    out = replaceAt(out, brackets);
  }
  return out;
}

/**
 * Where, in `text`, the brackets of its tokens are: the UTF-16 index of each code point that
 * folds to a bracket inside a token of the folded view, in order, each once.
 */
function tokenBrackets(text: string): number[] {
  const [first, second] = foldedViews(text);
  const at = first ? bracketsIn(first) : [];
  if (!second) return at;
  return [...new Set([...at, ...bracketsIn(second)])].sort((a, b) => a - b);
}

function bracketsIn(view: FoldedView): number[] {
  const at: number[] = [];
  for (const match of view.text.matchAll(tokenPattern())) {
    for (let k = match.index; k < match.index + match[0].length; k++) {
      const index = view.from[k] as number;
      if (isBracket(view.text.charCodeAt(k)) && at.at(-1) !== index) at.push(index);
    }
  }
  return at;
}

/** Only a look-alike's brackets are kept, made inert (`ᔌ` folds to `ᔋ<`, becomes `⟨`). */
function inertForm(char: string): string {
  const [first, second] = foldChar(char).map((folded) =>
    [...folded].map((c) => INERT[c] ?? '').join(''),
  );
  return first || second || '';
}

/** `text` with the code point at each index in `at` replaced by its inert brackets. */
function replaceAt(text: string, at: number[]): string {
  const pieces: string[] = [];
  let done = 0;
  for (const index of at) {
    const size = (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
    const char = text.slice(index, index + size);
    pieces.push(text.slice(done, index), INERT[char] ?? inertForm(char));
    done = index + size;
  }
  pieces.push(text.slice(done));
  return pieces.join('');
}
