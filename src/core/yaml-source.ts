import { type Document, isMap, isScalar, LineCounter, parseDocument } from 'yaml';

/** A YAML syntax error at a line (1-based, in the file the YAML came from). */
export interface YamlError {
  message: string;
  line: number | undefined;
}

/** A parsed YAML text that remembers where each value was written. */
export interface YamlSource {
  /** The value, or undefined when the text has syntax errors (other than duplicate keys). */
  value: unknown;
  errors: YamlError[];
  /**
   * The line of the value at `path`, or of its nearest ancestor that exists (a missing key
   * points at the map that lacks it). With `key`, the line of that key in the map at `path`.
   */
  lineOf(path: readonly PropertyKey[], key?: string): number | undefined;
}

/**
 * Parses `text`, collecting every syntax error (not only the first) with its line.
 * `lineOffset` is added to every line: frontmatter starts on line 2 of its SKILL.md.
 */
export function readYaml(text: string, lineOffset = 0): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const lineAt = (offset: number | undefined) =>
    offset === undefined ? undefined : lines.linePos(offset).line + lineOffset;
  const errors = doc.errors.map((error) => ({
    // The message repeats the position and a code frame; the line is reported on its own.
    message: (error.message.split('\n')[0] ?? 'invalid YAML').replace(
      / at line \d+, column \d+:?$/,
      '',
    ),
    line: error.linePos ? error.linePos[0].line + lineOffset : undefined,
  }));
  // A duplicate key leaves a whole document (the last value wins), so the rest of it can
  // still be checked in the same round; any other syntax error leaves no value.
  const whole = doc.errors.every((error) => error.code === 'DUPLICATE_KEY');
  return {
    value: whole ? doc.toJS() : undefined,
    errors,
    lineOf: (path, key) => lineAt(offsetOf(doc, path, key)),
  };
}

function offsetOf(doc: Document, path: readonly PropertyKey[], key?: string): number | undefined {
  if (key !== undefined) {
    const map = path.length === 0 ? doc.contents : doc.getIn(path, true);
    if (isMap(map)) {
      const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key);
      const keyNode = pair?.key;
      if (isScalar(keyNode) && keyNode.range) return keyNode.range[0];
    }
  }
  for (let depth = path.length; depth > 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number, number] };
    if (node?.range) return node.range[0];
  }
  const root = doc.contents as { range?: [number, number, number] } | null;
  return root?.range?.[0];
}
