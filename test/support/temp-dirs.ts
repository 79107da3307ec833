import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * A maker of fresh directories (`prefix` and a random tail, in `parent`), each removed after
 * the test that made it. Call it at a file's top level: it registers its own afterEach, and
 * hooks registered later run before it (vitest runs afterEach hooks as a stack).
 */
export function tempDirs(prefix: string, parent: string = tmpdir()): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(parent, prefix));
    made.push(dir);
    return dir;
  };
}
