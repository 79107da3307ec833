import { readFileSync } from 'node:fs';

export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  webmanifest: 'application/manifest+json',
  png: 'image/png',
} as const;

/**
 * A page's files by request path, read once from `folder`: `files` maps each path to a file
 * name, whose extension gives its type. Everything a page needs is served from here (no
 * CDN, no web font).
 */
export function loadAssets(
  folder: URL,
  files: Readonly<Record<string, `${string}.${keyof typeof TYPES}`>>,
): ReadonlyMap<string, Asset> {
  return new Map(
    Object.entries(files).map(([route, file]) => [
      route,
      {
        type: TYPES[file.slice(file.lastIndexOf('.') + 1) as keyof typeof TYPES],
        body: readFileSync(new URL(file, folder)),
      },
    ]),
  );
}
