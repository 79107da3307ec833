import { type Asset, loadAssets } from '../dashboard/assets.ts';

export type { Asset } from '../dashboard/assets.ts';

/**
 * The chat page by path under `/chat`: one HTML file, its script modules (attach.js: files
 * and voice) and its style sheet (on top of the dashboard's `/base.css`), and the web app
 * manifest with its icons (drawn from icon.svg by scripts/make-icons.ts).
 */
export function loadChatPage(): ReadonlyMap<string, Asset> {
  return loadAssets(new URL('./page/', import.meta.url), 'chat.html', [
    'chat.js',
    'markup.js',
    'attach.js',
    'turn.js',
    'welcome.js',
    'conversations.js',
    'conversation-tools.js',
    'model-picker.js',
    'message-actions.js',
    'chat.css',
    'manifest.webmanifest',
    'icon-192.png',
    'icon-512.png',
  ]);
}
