/** Hostile HTML generated for a test (never committed): `depth` nested blocks around a line. */
export function nestedPage(depth: number, inner = 'DEEP-TEXT at the bottom'): string {
  return `<html><head><title>Deep</title></head><body>${'<div>'.repeat(depth)}<p>${inner}</p>${'</div>'.repeat(depth)}</body></html>`;
}

/** About `bytes` of HTML: one block of paragraphs that each hold a link. */
export function linksPage(bytes: number): string {
  const links: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    links.push(`<p><a href="/p/${i}">link number ${i}</a></p>`);
    size += links.at(-1)!.length;
  }
  return `<html><head><title>Links</title></head><body><div>${links.join('')}</div></body></html>`;
}
