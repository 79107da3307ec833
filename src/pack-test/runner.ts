import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readYamlFile } from '../core/yaml-source.ts';
import { type TestFile, testFileSchema } from './test-file.ts';

/** How a run went: counts, and the exit code `satchel pack test` ends with. */
export interface PackTestSummary {
  passed: number;
  failed: number;
}

/** The `tests/*.yml` files of a pack, in name order. */
export function testFilesOf(packDir: string): string[] {
  const dir = path.join(packDir, 'tests');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Reads and checks a test file; throws an Error naming what is wrong. */
function readTestFile(file: string): TestFile {
  // Read with the limits of every YAML a pack supplies; its first error is one sentence.
  const source = readYamlFile(file);
  const [error] = source.errors;
  if (error)
    throw new Error(`not valid YAML: ${error.line ? `line ${error.line}: ` : ''}${error.message}`);
  const parsed = testFileSchema.safeParse(source.value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
  throw new Error(`not a valid test file: ${problems.join('; ')}`);
}

/**
 * Runs every test of one pack, writing a line per test (`✓ file: name`, or `✗ file: name`
 * and each unmet expectation under it) to `out`.
 */
export async function runPackTests(
  packDir: string,
  packName: string,
  out: { write(text: string): unknown },
): Promise<PackTestSummary> {
  const summary = { passed: 0, failed: 0 };
  const files = testFilesOf(packDir);
  if (files.length === 0) return summary;
  // The whole core runs a test: it loads once there is one.
  const { runPackTest } = await import('./run-test.ts');
  for (const file of files) {
    const label = path.basename(file);
    let tests: TestFile;
    try {
      tests = readTestFile(file);
    } catch (error) {
      summary.failed++;
      out.write(`✗ ${label}\n    ${(error as Error).message}\n`);
      continue;
    }
    for (const test of tests.tests) {
      const failures = await runPackTest(packDir, packName, tests, test);
      summary[failures.length === 0 ? 'passed' : 'failed']++;
      out.write(`${failures.length === 0 ? '✓' : '✗'} ${label}: ${test.name}\n`);
      for (const failure of failures) out.write(`    ${failure}\n`);
    }
  }
  return summary;
}
