import { readFileSync } from 'node:fs';

export interface Asset {
  type: string;
  body: Buffer;
}

const FILES = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/dom.js': ['dom.js', 'text/javascript; charset=utf-8'],
  '/chart.js': ['chart.js', 'text/javascript; charset=utf-8'],
  '/tables.js': ['tables.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
} as const;

/**
 * The page, by request path: one HTML file, its script modules and its style sheet, all
 * served from here (no CDN, no web font). The script fetches `/api/usage` and draws
 * everything itself (hand-made SVG for the chart).
 */
export function loadPage(): ReadonlyMap<string, Asset> {
  return new Map(
    Object.entries(FILES).map(([route, [file, type]]) => [
      route,
      { type, body: readFileSync(new URL(`./page/${file}`, import.meta.url)) },
    ]),
  );
}
