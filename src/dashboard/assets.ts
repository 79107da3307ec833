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

type AssetFile = `${string}.${keyof typeof TYPES}`;

/**
 * A page's files by request path, read once from `folder`: its HTML page `index` at `/`, and
 * each of `files` under its own name; a file's extension gives its type. Everything a page
 * needs is served from here (no CDN, no web font).
 */
export function loadAssets(
  folder: URL,
  index: `${string}.html`,
  files: readonly AssetFile[],
): ReadonlyMap<string, Asset> {
  const read = (file: AssetFile): Asset => ({
    type: TYPES[file.slice(file.lastIndexOf('.') + 1) as keyof typeof TYPES],
    body: readFileSync(new URL(file, folder)),
  });
  return new Map([['/', read(index)], ...files.map((file) => [`/${file}`, read(file)] as const)]);
}
