/** A bot token as it appears in Bot API URLs: `/bot<digits>:<secret>/`. */
const BOT_TOKEN_IN_URL = /\/bot\d+:[\w-]+/g;

/**
 * A function that removes secrets from text before it is stored or shown: every occurrence
 * of one of `secrets` (bot token, API keys), and any bot token inside a Bot API URL.
 */
export function createRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (text) =>
    known
      .reduce((out, secret) => out.split(secret).join('[redacted]'), text)
      .replace(BOT_TOKEN_IN_URL, '/bot[redacted]');
}

/**
 * Well-known shapes of secrets, whoever's they are: a Telegram bot token, OpenAI (`sk-…`),
 * Groq (`gsk_…`) and Google (`AIza…`) API keys, and the credential of a Bearer header. Each
 * must start and end at a boundary, so an id that merely contains such letters is kept.
 * Every look-behind reads a fixed number of characters: an unbounded one (`\s+` behind the
 * Bearer word) re-reads a whole run of spaces at each of its characters, which made 100,000
 * spaces from an MCP server's stderr take seconds. The Bearer word and its spaces are
 * matched instead (the `bearer` group) and put back by the replacement.
 */
const SECRET_SHAPES = new RegExp(
  [
    String.raw`(?:(?<![\w-])|(?<=/bot))\d+:[A-Za-z0-9_-]{35}(?![\w-])`,
    String.raw`(?<![\w-])sk-[A-Za-z0-9_-]{20,}`,
    String.raw`(?<![\w-])gsk_[A-Za-z0-9]{20,}`,
    String.raw`(?<![\w-])AIza[A-Za-z0-9_-]{35}`,
    String.raw`(?<bearer>\b(?:Bearer|bearer|BEARER)\s+)[A-Za-z0-9._~+/-]{8,}=*`,
  ].join('|'),
  'g',
);

/**
 * `text` with anything shaped like a secret replaced by `[redacted]`. For what satchel keeps
 * beside the conversation (raw updates, logs): a token the user pastes stays in the
 * conversation they wrote, and nowhere else. Linear in the length of `text`.
 */
export function redactSecretShapes(text: string): string {
  return text.replace(SECRET_SHAPES, (...args) => {
    const groups = args.at(-1) as { bearer?: string };
    return `${groups.bearer ?? ''}[redacted]`;
  });
}

/** Whether `text` holds anything shaped like a secret (what `redactSecretShapes` replaces). */
export function hasSecretShape(text: string): boolean {
  SECRET_SHAPES.lastIndex = 0;
  return SECRET_SHAPES.test(text);
}

/**
 * `value` (JSON-like) with every string in it passed through `redactSecretShapes`, keys in
 * their order. Walked with a stack of its own rather than by recursion: an update nested
 * 20,000 deep (a webhook body of well under 1 MB) would overflow the call stack.
 */
export function redactSecretShapesIn(value: unknown): unknown {
  const root: { value?: unknown } = {};
  const work: [into: Record<string, unknown>, key: string, from: unknown][] = [
    [root, 'value', value],
  ];
  for (let next = work.pop(); next; next = work.pop()) {
    const [into, key, from] = next;
    if (typeof from === 'string') into[key] = redactSecretShapes(from);
    else if (from && typeof from === 'object') {
      // A spread copy holds every key as its own property, `__proto__` too, so filling it in
      // replaces values and never reaches a prototype's setter. An array's keys are indices.
      const copy = (Array.isArray(from) ? [...from] : { ...from }) as Record<string, unknown>;
      into[key] = copy;
      for (const [k, inner] of Object.entries(copy)) work.push([copy, k, inner]);
    } else into[key] = from;
  }
  return root.value;
}
