import { type Asset, loadAssets } from './assets.ts';

export type { Asset } from './assets.ts';

/**
 * The dashboard page: one HTML file, its script modules and its style sheets (`base.css` is
 * the web chat's too). The script fetches `/api/usage` and draws everything itself
 * (hand-made SVG for the chart).
 */
export function loadPage(): ReadonlyMap<string, Asset> {
  return loadAssets(new URL('./page/', import.meta.url), 'index.html', [
    'app.js',
    'dom.js',
    'chart.js',
    'tables.js',
    'base.css',
    'app.css',
    'sign-in.js',
    'sign-in.css',
  ]);
}
