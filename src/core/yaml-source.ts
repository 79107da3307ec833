import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import {
  Composer,
  type CST,
  type Document,
  isMap,
  isScalar,
  LineCounter,
  Parser,
  YAMLParseError,
} from 'yaml';
import { tooLarge, YAML_LIMITS, yamlLimitBreach } from './yaml-limits.ts';

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
  /** Set when the text is past a limit (YAML_LIMITS): then it is the one error, and no value. */
  refused?: YamlError;
  /**
   * The line of the value at `path`, or of its nearest ancestor that exists (a missing key
   * points at the map that lacks it). With `key`, the line of that key in the map at `path`.
   */
  lineOf(path: readonly PropertyKey[], key?: string): number | undefined;
}

/**
 * Parses `text`, collecting every syntax error (not only the first) with its line.
 * `lineOffset` is added to every line: frontmatter starts on line 2 of its SKILL.md.
 * Never throws: a text past YAML_LIMITS (size, entries, aliases, depth) is refused before
 * it is composed, and an alias that expands too often ends as an error too, in one sentence.
 */
export function readYaml(text: string, lineOffset = 0): YamlSource {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > YAML_LIMITS.bytes) return refusal({ message: tooLarge(bytes), line: undefined });
  const lines = new LineCounter();
  const lineAt = (offset: number | undefined) =>
    offset === undefined ? undefined : lines.linePos(offset).line + lineOffset;
  // Parsed once: the limits are checked on the tokens, which are then composed.
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  const breach = yamlLimitBreach(tokens, (offset) => lines.linePos(offset).line + lineOffset);
  if (breach) return refusal(breach);
  const doc = compose(tokens, text.length);
  const errors = doc.errors.map((error) => ({
    message: (error.message.split('\n')[0] ?? 'invalid YAML').replace(
      / at line \d+, column \d+:?$/,
      '',
    ),
    line: lineAt(error.pos[0]),
  }));
  // A duplicate key leaves a whole document (the last value wins), so the rest of it can
  // still be checked in the same round; any other syntax error leaves no value.
  const whole = doc.errors.every((error) => error.code === 'DUPLICATE_KEY');
  let value: unknown;
  try {
    value = whole ? doc.toJS({ maxAliasCount: YAML_LIMITS.aliases }) : undefined;
  } catch (error) {
    // The library refuses an alias bomb with a ReferenceError ("Excessive alias count…").
    const message =
      error instanceof ReferenceError
        ? `expands its aliases (*name) more than ${YAML_LIMITS.aliases} times; satchel expands at most ${YAML_LIMITS.aliases}`
        : `cannot be read: ${(error as Error).message.split('\n')[0]}`;
    return refusal({ message, line: undefined });
  }
  return { value, errors, lineOf: (path, key) => lineAt(offsetOf(doc, path, key)) };
}

/**
 * Reads the YAML file `file` as readYaml does, refusing one past YAML_LIMITS.bytes from its
 * size, before reading it. A file that cannot be read throws, as readFileSync does.
 */
export function readYamlFile(file: string): YamlSource {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > YAML_LIMITS.bytes) return refusal({ message: tooLarge(size), line: undefined });
    return readYaml(readFileSync(fd, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/** One document from `tokens`, as the library's parseDocument composes it. */
function compose(tokens: readonly CST.Token[], length: number): Document.Parsed {
  let doc: Document.Parsed | undefined;
  for (const next of new Composer().compose(tokens, true, length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents',
        ),
      );
      break;
    }
  }
  // compose(…, true) always ends with a document, an empty one for empty text.
  return doc!;
}

function refusal(error: YamlError): YamlSource {
  return { value: undefined, errors: [error], refused: error, lineOf: () => undefined };
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
