import { type Asset, loadAssets } from '../dashboard/assets.ts';

export type { Asset } from '../dashboard/assets.ts';

/**
 * The chat page by path under `/chat`: one HTML file, its script modules and its style sheet
 * (on top of the dashboard's `/base.css`).
 */
export function loadChatPage(): ReadonlyMap<string, Asset> {
  return loadAssets(new URL('./page/', import.meta.url), {
    '/': 'chat.html',
    '/chat.js': 'chat.js',
    '/markup.js': 'markup.js',
    '/turn.js': 'turn.js',
    '/welcome.js': 'welcome.js',
    '/chat.css': 'chat.css',
  });
}
