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
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outbase: path.join(ROOT, 'src'),
    outdir: path.join(dir, 'src'),
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
  return dir;
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
