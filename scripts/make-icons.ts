/**
 * Draws the web app's icons (src/web/page/icon-192.png and icon-512.png) from icon.svg with
 * Debian's Chromium (CHROMIUM_PATH elsewhere). Run once after changing the drawing:
 * `npx tsx scripts/make-icons.ts`; the PNGs are committed, the server only reads them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const folder = new URL('../src/web/page/', import.meta.url);
const svg = readFileSync(new URL('icon.svg', folder), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const drawn = svg.replace('<svg ', `<svg width="${size}" height="${size}" `);
    await page.setContent(`<body style="margin:0">${drawn}</body>`);
    const file = fileURLToPath(new URL(`icon-${size}.png`, folder));
    await page.screenshot({ path: file, type: 'png' });
    await page.close();
    console.log(`wrote ${file}`);
  }
} finally {
  await browser.close();
}
