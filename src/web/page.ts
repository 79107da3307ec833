import { type Asset, loadAssets } from '../dashboard/assets.ts';

export type { Asset } from '../dashboard/assets.ts';

/**
 * The chat page by path under `/chat`: one HTML file, its script modules (attach.js: files
 * and voice) and its style sheets (on top of the dashboard's `/base.css`), and the web app
 * manifest with its icons (drawn from icon.svg by scripts/make-icons.ts). rich.js and
 * rich.css (code highlighting and math) are built from page-rich/ by scripts/build-page.ts
 * and loaded only when a message needs them.
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
    'view.css',
    'enrich.js',
    'follow.js',
    'grow.js',
    'heading.js',
    'notify.js',
    'shortcuts.js',
    'rich.js',
    'rich.css',
    'manifest.webmanifest',
    'icon-192.png',
    'icon-512.png',
  ]);
}
