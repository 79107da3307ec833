/**
 * Builds the web chat's rich rendering (src/web/page-rich: highlight.js and Temml around
 * rich.js) into two files the page serves, src/web/page/rich.js and rich.css, minified,
 * with nothing fetched from outside. The built files are committed: satchel runs without
 * its devDependencies (the Docker image installs none), and a fresh clone serves them as
 * they are. test/unit/page-bundle.test.ts fails when they differ from what this builds.
 *
 *   npx tsx scripts/build-page.ts      (after changing src/web/page-rich or the libraries)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildRichPage } from './page-bundle.ts';

const files = await buildRichPage();
for (const [name, text] of Object.entries(files)) {
  const to = fileURLToPath(new URL(`../src/web/page/${name}`, import.meta.url));
  writeFileSync(to, text);
  console.log(`${name}: ${Buffer.byteLength(text)} bytes`);
}
