import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/**
 * The web chat's rich rendering as esbuild bundles it from src/web/page-rich: `rich.js` (an
 * ES module for the browser: rich.js with highlight.js and Temml) and `rich.css`, minified,
 * as text by name. scripts/build-page.ts writes them into src/web/page; the page bundle test
 * checks that the committed ones are what this builds.
 */
export async function buildRichPage(): Promise<Record<'rich.js' | 'rich.css', string>> {
  const common = {
    bundle: true,
    minify: true,
    write: false,
    legalComments: 'eof',
    logLevel: 'warning',
    absWorkingDir: path('..'),
  } as const;
  const [js, css] = await Promise.all([
    build({
      ...common,
      entryPoints: [path('../src/web/page-rich/rich.js')],
      format: 'esm',
      target: 'chrome109',
    }),
    build({ ...common, entryPoints: [path('../src/web/page-rich/rich.css')], plugins: [noFonts] }),
  ]);
  return { 'rich.js': js.outputFiles[0]!.text, 'rich.css': css.outputFiles[0]!.text };
}

/** Temml's style sheet without its @font-face: the page's CSP allows no font to load. */
const noFonts: Plugin = {
  name: 'no-fonts',
  setup(b) {
    b.onLoad({ filter: /Temml-Local\.css$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/@font-face\s*{[^}]*}/g, ''), loader: 'css' };
    });
  },
};
