import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliIo } from '../core/cli-io.ts';
import { inspectPack } from '../packs/loader.ts';
import { formatProblem } from '../packs/problems.ts';
import { BUNDLED_SCHEMA, BUNDLED_TEST_SCHEMA, packName, scaffoldPack } from '../packs/scaffold.ts';
import { oneArgument, parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand } from './command.ts';
import { packNewInfo } from './help.ts';
import { packDirs } from './pack-list.ts';

export const packNewCommand: CliCommand = {
  ...packNewInfo,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { dir: { type: 'string' } });
    const name = oneArgument(positionals, 'satchel pack new needs the name of the pack');
    const valid = packName.safeParse(name);
    if (!valid.success)
      throw new UsageError(`the pack name "${name}" ${valid.error.issues[0]?.message}`);

    // Not into SATCHEL_PACKS: a half-made pack would show in every chat's picker at once.
    const root = values.dir ? path.resolve(io.cwd, values.dir) : io.cwd;
    const dir = path.join(root, name);
    if (existsSync(dir)) {
      io.stderr.write(`${dir} already exists; choose another name or remove it first.\n`);
      return 1;
    }
    create(dir, name);
    return report(io, root, dir, name);
  },
};

function create(dir: string, name: string): void {
  const inRepo = isInside(path.dirname(path.dirname(BUNDLED_SCHEMA)), dir);
  const schemaOf = (schema: string, from: string) =>
    inRepo ? path.relative(from, schema).split(path.sep).join('/') : pathToFileURL(schema).href;
  const files = scaffoldPack(
    name,
    schemaOf(BUNDLED_SCHEMA, dir),
    schemaOf(BUNDLED_TEST_SCHEMA, path.join(dir, 'tests')),
  );
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: 'wx' });
  }
}

/** Checks what was written (it must pass validate) and says what to do next. */
function report(io: CliIo, root: string, dir: string, name: string): number {
  const { problems } = inspectPack(dir);
  if (problems.length > 0) {
    io.stderr.write(
      `Created ${dir}, but it does not validate (a satchel bug):\n${problems.map(formatProblem).join('\n')}\n`,
    );
    return 1;
  }
  const shown = isInside(io.cwd, dir) ? path.relative(io.cwd, dir) : dir;
  const from = path.relative(io.cwd, root);
  const source = path.isAbsolute(shown) ? shown : `./${shown}`;
  // A folder of its own can be loaded as it is; the current directory holds other folders,
  // each of which satchel would report as a broken pack, so there the pack is installed.
  const tryIt =
    from === ''
      ? [
          `  npx satchel pack add ${source} --yes   # installs a copy (after an edit: --upgrade)`,
          `  npx satchel chat --pack ${name}`,
        ]
      : [
          `  SATCHEL_PACKS=${from} npx satchel chat --pack ${name}`,
          `  npx satchel pack add ${source} --yes   # when it is ready: the bot offers it from its next start`,
        ];
  const lines = [
    `Created pack "${name}" in ${shown} (a running satchel does not load it)`,
    '',
    'Next:',
    `  npx satchel pack validate ${shown}`,
    `  npx satchel pack test ${shown}`,
    ...tryIt,
    '  then edit pack.yml, SOUL.md and skills/notes/SKILL.md (docs/PACKS.md is the guide)',
  ];
  if (packDirs(io).includes(root))
    lines.push(
      '',
      `Note: satchel loads packs from ${root}, so a running bot offers "${name}" in every chat now.`,
    );
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Whether `target` is inside `root` (a pack created under the repository, under cwd). */
function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  const up = relative === '..' || relative.startsWith(`..${path.sep}`);
  return relative !== '' && !up && !path.isAbsolute(relative);
}
