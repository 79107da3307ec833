/**
 * The web chat page's weight: the bytes a browser fetches to show `/chat` (the HTML, the
 * style sheets and scripts it links, and every module those scripts import statically), and
 * apart from them the modules it imports only later (`import('./x.js')`, loaded when a
 * message needs them) with the style sheets they add. `get(path)` fetches one file of the
 * page by its path (`/chat`, `/chat/chat.js`, `/base.css`).
 */
export interface PageWeight {
  /** Bytes fetched to show the page, by path. */
  atLoad: Map<string, number>;
  /** Bytes fetched only when a message needs them, by path. */
  later: Map<string, number>;
}

const LINKED = /(?:href|src)="(\/[^"]+\.(?:css|js))"/g;
const STATIC_IMPORT = /^import\s[^;]*?from\s+'(\.\/[^']+)'/gm;
const DYNAMIC_IMPORT = /import\('(\.\/[^']+)'\)/g;
const SHEET = /\.href\s*=\s*'(\/[^']+\.css)'/g;

export async function pageWeight(get: (path: string) => Promise<Buffer>): Promise<PageWeight> {
  const atLoad = new Map<string, number>();
  const later = new Map<string, number>();
  const html = await get('/chat');
  atLoad.set('/chat', html.length);

  async function walk(path: string, into: Map<string, number>): Promise<void> {
    if (atLoad.has(path) || later.has(path)) return;
    const body = await get(path);
    into.set(path, body.length);
    if (!path.endsWith('.js')) return;
    const text = body.toString('utf8');
    const beside = (name: string) => new URL(name, `http://page${path}`).pathname;
    for (const [, name] of text.matchAll(STATIC_IMPORT)) await walk(beside(name!), into);
    for (const [, name] of text.matchAll(DYNAMIC_IMPORT)) await walk(beside(name!), later);
    for (const [, sheet] of text.matchAll(SHEET)) await walk(sheet!, later);
  }
  for (const [, path] of html.toString('utf8').matchAll(LINKED)) await walk(path!, atLoad);
  return { atLoad, later };
}

export const total = (files: Map<string, number>) => [...files.values()].reduce((a, b) => a + b, 0);

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
