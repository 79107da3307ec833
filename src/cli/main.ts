import { loadPack, PackError } from '../packs/loader.ts';

const USAGE = `Usage:
  satchel pack validate <dir>   check a pack (manifest, skills, schema) without starting the bot`;

/** `satchel pack validate <dir>`: exit 0 and a summary, or exit 1 and every problem found. */
function validate(dir: string | undefined): number {
  if (!dir) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const pack = loadPack(dir);
    const { manifest } = pack;
    process.stdout.write(
      `${[
        `ok: ${pack.name} ${manifest.version} (${pack.displayName})`,
        `  skills: ${pack.skills.map((s) => (s.command ? `/${s.name}` : s.name)).join(', ')}`,
        `  owned tables: ${manifest.schema.owned_tables.join(', ') || 'none'}`,
        `  tools: ${manifest.tools.join(', ') || 'none'}`,
        `  schedules: ${manifest.cron.map((c) => `${c.id} (${c.schedule})`).join(', ') || 'none'}`,
      ].join('\n')}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    process.stderr.write(`invalid pack:\n${error.message}\n`);
    return 1;
  }
}

function main(args: string[]): number {
  const [group, command, ...rest] = args;
  if (group === 'pack' && command === 'validate') return validate(rest[0]);
  process.stderr.write(`${USAGE}\n`);
  return group === undefined || group === 'help' || group === '--help' ? 0 : 2;
}

process.exitCode = main(process.argv.slice(2));
