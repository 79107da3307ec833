import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import type { CliIo } from '../core/cli-io.ts';
import { installedPacksDir, installedSource } from '../packs/installed.ts';
import { type PackInspection, scanPacks } from '../packs/loader.ts';
import { formatProblem } from '../packs/problems.ts';
import { type PackSettingsEnv, resolveSettings } from '../packs/settings.ts';
import type { Skill } from '../packs/skills.ts';
import { noMoreThan, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';
import { packListInfo } from './help.ts';

/**
 * The pack folders satchel loads, as `npm start` would read them: SATCHEL_PACKS (from the
 * environment, or `.env` in the working directory; `./packs` when unset), absolute.
 */
export function packDirs(io: Pick<CliIo, 'env' | 'cwd'>): string[] {
  const env = withEnvFile(io.env, io.cwd);
  return envSchema.shape.SATCHEL_PACKS.parse(env.SATCHEL_PACKS).map((dir) =>
    path.resolve(io.cwd, dir),
  );
}

/** SATCHEL_HOME/installed-packs, where `satchel pack add` puts packs. */
export function installedDir(io: Pick<CliIo, 'env' | 'cwd'>): string {
  const env = withEnvFile(io.env, io.cwd);
  return installedPacksDir(
    path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME)),
  );
}

export const packListCommand: CliCommand = {
  ...packListInfo,
  async run(args, io) {
    noMoreThan(parseCommandArgs(args, {}).positionals, 0);
    const dirs = [...packDirs(io), installedDir(io)];
    const found = scanPacks(dirs);
    const env = settingsEnv(io);
    const describe = (f: PackInspection) => describePack(f, env);
    if (found.length === 0) {
      io.stdout.write(
        `No packs in ${dirs.join(', ')}. Create one with: npx satchel pack new NAME\n`,
      );
      return 0;
    }
    for (const root of dirs) {
      const here = found.filter((f) => path.dirname(f.dir) === root);
      if (here.length > 0) io.stdout.write(`${root}\n${here.map(describe).join('\n')}\n`);
    }
    const broken = found.filter((f) => !f.pack).length;
    const unset = found.filter((f) => f.pack && missingOf(f.pack, env).length > 0).length;
    io.stdout.write(
      `\n${found.length - broken - unset} pack(s) load${broken ? `, ${broken} broken (skipped at start; run npx satchel pack validate DIR for details)` : ''}${unset ? `, ${unset} missing settings (skipped at start until they are set)` : ''}.\n`,
    );
    return 0;
  },
};

/** The `SATCHEL_PACK_*` variables `npm start` would see (the environment over `.env`). */
export function settingsEnv(io: Pick<CliIo, 'env' | 'cwd'>): PackSettingsEnv {
  const env = withEnvFile(io.env, io.cwd);
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('SATCHEL_PACK_') && entry[1] !== undefined,
    ),
  );
}

const missingOf = (pack: NonNullable<PackInspection['pack']>, env: PackSettingsEnv) =>
  resolveSettings(pack.manifest, env).missing;

/**
 * One pack: its line, skills and source, and the variables of its unset required settings;
 * or its folder and its problems.
 */
function describePack({ dir, pack, problems }: PackInspection, env: PackSettingsEnv): string {
  if (!pack) {
    const lines = problems.map(
      (p) => `    ${formatProblem({ ...p, file: path.relative(dir, p.file) || '.' })}`,
    );
    return [`  ${path.basename(dir)}  BROKEN`, ...lines].join('\n');
  }
  return [
    `  ${pack.name}  ${pack.manifest.version}  ${pack.displayName}`,
    `    skills: ${pack.skills.map(skillLabel).join(', ')}`,
    `    source: ${sourceOf(dir)}`,
    ...missingLine(missingOf(pack, env)),
  ].join('\n');
}

function missingLine(missing: readonly string[]): string[] {
  if (missing.length === 0) return [];
  return [`    missing settings: ${missing.join(', ')} (skipped at start until set)`];
}

/** Where a pack came from: `pack add`'s record, or the folder it is in (a bundled pack). */
function sourceOf(dir: string): string {
  const from = installedSource(dir);
  return from ? `installed from ${from}` : `folder ${path.dirname(dir)}`;
}

/** `name`, `/name` for a command, `my-skill (/my_skill)` when they differ. */
export function skillLabel(skill: Skill): string {
  if (!skill.command) return skill.name;
  return skill.commandName === skill.name
    ? `/${skill.name}`
    : `${skill.name} (/${skill.commandName})`;
}
