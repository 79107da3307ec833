// DOM and number helpers for the dashboard page. Everything is built with textContent:
// names from the ledger (packs, models) are never parsed as HTML.

const SVG = 'http://www.w3.org/2000/svg';
const integer = new Intl.NumberFormat('en-US');

export const byId = (id) => document.getElementById(id);

export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

export function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An element with inline styles set through the CSSOM (the page's policy bans style=""). */
export function styled(tag, props, style) {
  const node = el(tag, props);
  Object.assign(node.style, style);
  return node;
}

/** Dollars as /usage prints them: cents for dollars, two significant digits below a cent. */
export function usd(n) {
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n >= 0.01) return `$${n.toFixed(4)}`;
  return `$${n.toPrecision(2)}`;
}

/** A cost that says when part or all of it is unknown: never $0 for unpriced calls. */
export function cost(row) {
  if (row.calls === 0) return '$0';
  if (row.cost_usd === null) return 'unknown';
  if (row.unknown_price_calls > 0)
    return `${usd(row.cost_usd)} + ${row.unknown_price_calls} unpriced`;
  return usd(row.cost_usd);
}

export const tokens = (n) => integer.format(n);

/** The share of input tokens the provider's prompt cache served, and what that saved. */
export function cached(row) {
  if (!row.input_tokens) return '–';
  const share = Math.round((100 * row.cached_input_tokens) / row.input_tokens);
  return `${share}% · saved ${usd(row.cache_saved_usd ?? 0)}`;
}
export const packName = (pack) => (pack === null ? '(no pack)' : pack);
