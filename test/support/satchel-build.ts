import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Global setup of the `process` project: satchel compiled to JavaScript once for the run,
 * which the tests' child processes start (test/support/built.ts) instead of loading every
 * module through tsx again: `satchel --version` 0.3 s instead of 1 s, a bot's start 0.7 s of
 * CPU instead of 1.9 s. The spawned smoke tests of the real entry points (the bin, `npm
 * start`) still run the source through tsx, as a user does.
 */
export default async function setup(project: TestProject) {
  const dir = await buildSatchel();
  project.provide('satchelBuild', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

/**
 * Every file of src/ compiled one to one (imports kept, `.ts` → `.js`), into a folder laid out
 * like the repository, so what a module finds beside it (`../../migrations`, `./page/`, the
 * packs, package.json, node_modules) is where it is in the source.
 */
export async function buildSatchel(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-build-'));
  const files = filesOf(path.join(ROOT, 'src'));
  const entries = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    entryPoints: [...entries, ...CHILD_FIXTURES.map((f) => path.join(ROOT, f))],
    outbase: ROOT,
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    plugins: [
      {
        name: 'one-to-one',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'entry-point'
              ? undefined
              : { path: args.path.replace(/\.ts$/, '.js'), external: true },
          );
        },
      },
    ],
  });
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    const to = path.join(dir, path.relative(ROOT, file));
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(file, to);
  }
  for (const name of ['migrations', 'packs', 'package.json', 'node_modules'])
    symlinkSync(path.join(ROOT, name), path.join(dir, name));
  linkBeside(dir, CHILD_FIXTURES);
  return dir;
}

/**
 * Test fixtures that tests run as child processes (stand-ins for satchel that use its
 * modules), built with it: from the build they start in a fraction of a tsx start.
 */
export const CHILD_FIXTURES = ['test/fixtures/db-query-exit.ts', 'test/fixtures/mcp/hub-parent.ts'];

/**
 * What a built fixture finds beside it (the fixture packs, a server script) is linked into its
 * folder of the build; the folders on the way to a built fixture are folders of their own.
 */
function linkBeside(dir: string, fixtures: string[]): void {
  const built = new Set(fixtures);
  const onTheWay = new Set(fixtures.flatMap((f) => ancestors(path.dirname(f))));
  for (const folder of onTheWay)
    for (const entry of readdirSync(path.join(ROOT, folder))) {
      const file = path.join(folder, entry);
      if (built.has(file) || onTheWay.has(file)) continue;
      symlinkSync(path.join(ROOT, file), path.join(dir, file));
    }
}

/** `folder` and the folders above it inside test/: test/fixtures/mcp → it, test/fixtures. */
function ancestors(folder: string): string[] {
  return folder === 'test' ? [] : [folder, ...ancestors(path.dirname(folder))];
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? filesOf(file) : [file];
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    satchelBuild: string;
  }
}
