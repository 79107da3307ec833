/**
 * Prepares a half-written answer for rendering while it streams. A partial text often ends
 * inside a mark: `Correct! *` is half of `**`, `**bo` waits for its closing `**`, `` a `co ``
 * for its backtick. Rendered as it is, Markdown shows those markers as literal characters
 * that vanish a second later. So a trailing run of marker characters is held back until the
 * next delta, and marks still open in the last paragraph are closed. The final answer is
 * rendered from its own full text and never passes through here.
 */
export function partialMarkdown(text: string): string {
  const held = text.replace(/[*_~`]+$/, '').trimEnd();
  if (insideFence(held)) return held;
  const paragraphStart = held.lastIndexOf('\n\n') + 1;
  const open = openMarks(held.slice(paragraphStart));
  return held + open.reverse().join('');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Whether the text ends inside a fenced code block (its content is literal anyway). */
function insideFence(text: string): boolean {
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line)?.[1];
    if (!match) continue;
    if (fence === undefined) fence = match;
    else if (match[0] === fence[0] && match.length >= fence.length) fence = undefined;
  }
  return fence !== undefined;
}

const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/**
 * The marks left open at the end of a paragraph, in opening order: code spans (whose content
 * is literal), `**`/`__`, `*`/`_` and `~~`. A run opens a mark when text follows it and
 * closes the innermost open mark of its kind when text precedes it; an underscore inside a
 * word (snake_case) is neither. A simplification of CommonMark's flanking rules, enough to
 * tell which closers to add.
 */
function openMarks(paragraph: string): string[] {
  const stack: string[] = [];
  let i = 0;
  while (i < paragraph.length) {
    const ch = paragraph[i] as string;
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (!'*_~`'.includes(ch)) {
      i++;
      continue;
    }
    let end = i;
    while (paragraph[end] === ch) end++;
    const run = paragraph.slice(i, end);
    const before = paragraph[i - 1] ?? ' ';
    const after = paragraph[end] ?? ' ';
    i = end;
    if (ch === '`') {
      const code = paragraph.indexOf(run, end);
      if (code === -1) return [...stack, run];
      i = code + run.length;
      continue;
    }
    if (ch === '_' && WORD.test(before) && WORD.test(after)) continue;
    if (ch === '~' && run.length !== 2) continue;
    for (const mark of splitRun(run)) {
      const top = stack.lastIndexOf(mark);
      if (top !== -1 && !SPACE.test(before)) stack.splice(top);
      else if (!SPACE.test(after)) stack.push(mark);
    }
  }
  return stack;
}

/** A run of `*` or `_` as the marks it can stand for: `***` is `**` and `*`. */
function splitRun(run: string): string[] {
  if (run[0] === '~') return [run];
  const marks: string[] = [];
  let rest = run.length;
  while (rest >= 2) {
    marks.push(run.slice(0, 2));
    rest -= 2;
  }
  if (rest === 1) marks.push(run.slice(0, 1));
  return marks;
}
