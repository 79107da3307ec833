import type { CST } from 'yaml';

/**
 * What satchel reads of a YAML file the owner or a pack supplies (SPEC §14). The YAML
 * library's own work is not linear past these: each key of a mapping is compared with
 * every key before it, and each alias searches the whole document for its anchor, so a
 * 1 MB file of 60,000 keys or 30,000 aliases takes minutes. A file is checked against
 * them on its syntax tree (the Parser's tokens) before it is composed.
 */
export const YAML_LIMITS = {
  bytes: 1024 * 1024,
  /** Entries of one mapping or list. */
  entries: 1_000,
  /** Aliases (`*name`) written, and expansions when the value is built. */
  aliases: 100,
  /** Mappings and lists inside one another. */
  depth: 64,
} as const;

/** A limit the text is past: what is wrong, in words that name the limit, and where. */
export interface YamlLimitBreach {
  message: string;
  /** 1-based, as `lineAt` counts. */
  line: number;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The first limit the parsed `tokens` (a text of at most YAML_LIMITS.bytes, read by the
 * library's Parser) are past, or undefined when they are within all of them.
 */
export function yamlLimitBreach(
  tokens: readonly CST.Token[],
  lineAt: (offset: number) => number,
): YamlLimitBreach | undefined {
  let aliases = 0;
  // Depth first in document order (the stack is pushed in reverse), with a stack of its
  // own: a deep file must not exhaust the call stack.
  const stack: { token: CST.Token; depth: number }[] = [];
  for (const token of tokens.toReversed())
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth: 0 });
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'alias' && ++aliases > YAML_LIMITS.aliases)
      return {
        message: `has more than ${YAML_LIMITS.aliases} aliases (*name); satchel reads at most ${YAML_LIMITS.aliases}`,
        line: lineAt(token.offset),
      };
    if (!('items' in token)) continue;
    if (depth >= YAML_LIMITS.depth)
      return {
        message: `nests mappings and lists more than ${YAML_LIMITS.depth} deep; satchel reads at most ${YAML_LIMITS.depth}`,
        line: lineAt(token.offset),
      };
    if (token.items.length > YAML_LIMITS.entries)
      return {
        message: `has ${count(token.items.length)} entries in one ${kindOf(token)}; satchel reads at most ${count(YAML_LIMITS.entries)}`,
        line: lineAt(token.offset),
      };
    for (const item of token.items.toReversed())
      for (const node of [item.value, item.key])
        if (node && typeof node === 'object' && 'type' in node)
          stack.push({ token: node, depth: depth + 1 });
  }
  return undefined;
}

/** The sentence for a file of `bytes`, over YAML_LIMITS.bytes. */
export function tooLarge(bytes: number): string {
  const mb = (bytes / (1024 * 1024)).toFixed(1);
  return `is ${mb} MB; satchel reads at most 1 MB of YAML from one file`;
}

function kindOf(token: CST.Token): string {
  if (token.type === 'block-seq') return 'list';
  if (token.type === 'flow-collection') return token.start.source === '[' ? 'list' : 'mapping';
  return 'mapping';
}
