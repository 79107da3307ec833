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
 */
const SECRET_SHAPES = new RegExp(
  [
    String.raw`(?:(?<![\w-])|(?<=/bot))\d+:[A-Za-z0-9_-]{35}(?![\w-])`,
    String.raw`(?<![\w-])sk-[A-Za-z0-9_-]{20,}`,
    String.raw`(?<![\w-])gsk_[A-Za-z0-9]{20,}`,
    String.raw`(?<![\w-])AIza[A-Za-z0-9_-]{35}`,
    String.raw`(?<=\b(?:Bearer|bearer|BEARER)\s+)[A-Za-z0-9._~+/-]{8,}=*`,
  ].join('|'),
  'g',
);

/**
 * `text` with anything shaped like a secret replaced by `[redacted]`. For what satchel keeps
 * beside the conversation (raw updates, logs): a token the user pastes stays in the
 * conversation they wrote, and nowhere else.
 */
export function redactSecretShapes(text: string): string {
  return text.replace(SECRET_SHAPES, '[redacted]');
}

/** Whether `text` holds anything shaped like a secret (what `redactSecretShapes` replaces). */
export function hasSecretShape(text: string): boolean {
  SECRET_SHAPES.lastIndex = 0;
  return SECRET_SHAPES.test(text);
}

/** `value` (JSON-like) with every string in it passed through `redactSecretShapes`. */
export function redactSecretShapesIn(value: unknown): unknown {
  if (typeof value === 'string') return redactSecretShapes(value);
  if (Array.isArray(value)) return value.map(redactSecretShapesIn);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, redactSecretShapesIn(inner)]),
    );
  return value;
}
