/** HTML character references, decoded where model text or rendered HTML is read as plain text. */

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Decodes one character reference (`&amp;`, `&#128512;`, `&#x1F600;`); unknown ones stay as is. */
export function decodeEntity(entity: string): string {
  const body = entity.slice(1, -1);
  if (!body.startsWith('#')) return NAMED[body.toLowerCase()] ?? entity;
  const hex = body[1] === 'x' || body[1] === 'X';
  const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
    ? String.fromCodePoint(code)
    : entity;
}

/** Decodes every character reference in `text`. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, decodeEntity);
}
