import { readFileSync } from 'node:fs';

export interface Asset {
  type: string;
  body: Buffer;
}

/** The chat page's files by path under `/chat`. */
const FILES = {
  '/': ['chat.html', 'text/html; charset=utf-8'],
  '/chat.js': ['chat.js', 'text/javascript; charset=utf-8'],
  '/markup.js': ['markup.js', 'text/javascript; charset=utf-8'],
  '/chat.css': ['chat.css', 'text/css; charset=utf-8'],
} as const;

/**
 * The chat page: one HTML file, its script modules and its style sheet, all served from here
 * (nothing from a CDN, no library from elsewhere). Read once.
 */
export function loadChatPage(): ReadonlyMap<string, Asset> {
  return new Map(
    Object.entries(FILES).map(([route, [file, type]]) => [
      route,
      { type, body: readFileSync(new URL(`./page/${file}`, import.meta.url)) },
    ]),
  );
}
