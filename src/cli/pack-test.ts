import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CliIo } from '../core/cli-io.ts';
import { runPackTests, testFilesOf } from '../pack-test/runner.ts';
import { inspectPack, type PackInspection, scanPacks } from '../packs/loader.ts';
import { formatProblem } from '../packs/problems.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand } from './command.ts';
import { packTestInfo } from './help.ts';
import { packDirs } from './pack-list.ts';

export const packTestCommand: CliCommand = {
  ...packTestInfo,
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {});
    const inspections = positionals.length
      ? positionals.map((arg) => choose(arg, io))
      : scanPacks(packDirs(io));
    let passed = 0;
    let failed = 0;
    for (const { dir, pack, problems } of inspections) {
      if (!pack) {
        failed++;
        io.stdout.write(`✗ ${dir}: the pack does not load\n`);
        for (const p of problems) io.stdout.write(`    ${formatProblem(p)}\n`);
        continue;
      }
      io.stdout.write(`${pack.name}\n`);
      if (testFilesOf(dir).length === 0) {
        failed++;
        io.stdout.write(`✗ ${pack.name} has no tests (tests/*.yml)\n`);
        continue;
      }
      const summary = await runPackTests(dir, pack.name, io.stdout);
      passed += summary.passed;
      failed += summary.failed;
    }
    io.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    return failed === 0 ? 0 : 1;
  },
};

/** A pack folder given as a path, or the pack of that name in SATCHEL_PACKS. */
function choose(arg: string, io: CliIo): PackInspection {
  const dir = path.resolve(io.cwd, arg);
  if (existsSync(path.join(dir, 'pack.yml'))) return inspectPack(dir);
  const found = scanPacks(packDirs(io)).find((i) => i.pack?.name === arg);
  if (!found) throw new UsageError(`no pack named "${arg}" in SATCHEL_PACKS, and no pack folder`);
  return found;
}
