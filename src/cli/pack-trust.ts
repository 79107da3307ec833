import path from 'node:path';
import { createInterface } from 'node:readline';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import type { CliIo } from '../core/cli-io.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import { changeLines } from '../mcp/pin-report.ts';
import type { WithheldTool } from '../mcp/types.ts';
import type { TrustReview } from '../ops/pack-trust.ts';
import { loadPacks } from '../packs/loader.ts';
import { oneArgument, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';
import { packTrustInfo } from './help.ts';
import { installedDir, packDirs, settingsEnv } from './pack-list.ts';

/** `satchel pack trust`, with the clock replaceable (tests pin at a known time). */
export function createPackTrustCommand(clock: Clock = systemClock): CliCommand {
  return {
    ...packTrustInfo,
    async run(args, io) {
      const { positionals, values } = parseCommandArgs(args, { yes: { type: 'boolean' } });
      const name = oneArgument(positionals, 'which pack? Give its name');
      const dirs = [...packDirs(io), installedDir(io)];
      const pack = loadPacks(dirs).packs.find((p) => p.name === name);
      if (!pack) {
        io.stderr.write(
          `satchel pack trust: no pack named "${name}" loads from ${dirs.join(', ')} (npx satchel pack list shows them)\n`,
        );
        return 1;
      }
      if (pack.manifest.mcp.length === 0) {
        io.stdout.write(`Pack ${name} has no MCP servers: nothing to trust.\n`);
        return 0;
      }
      // The MCP client and the database load only for a pack that has servers.
      const [
        { acceptChanges, PackTrustError, reviewPackTools },
        { openCoreStore },
        { createMcpPinRepo },
      ] = await Promise.all([
        import('../ops/pack-trust.ts'),
        import('../store/client.ts'),
        import('../store/mcp-pin-repo.ts'),
      ]);
      const store = openCoreStore(homeOf(io));
      try {
        const pins = createMcpPinRepo(store.db);
        const review = await reviewPackTools({ pack, env: settingsEnv(io), pins });
        const shown = report(io, name, review, values.yes === true);
        if (shown !== undefined) return shown;
        if (!(values.yes ?? (await confirm(io)))) {
          io.stderr.write('Nothing trusted: the changed tools stay withheld.\n');
          return 1;
        }
        acceptChanges(pins, review.withheld, clock.now());
        io.stdout.write(
          `Trusted ${count(review.withheld)} of ${name}: a running satchel offers them from its next turn.\n`,
        );
        return 0;
      } catch (error) {
        if (!(error instanceof PackTrustError)) throw error;
        io.stderr.write(`satchel pack trust: ${error.message}\n`);
        return 1;
      } finally {
        store.close();
      }
    },
  };
}

export const packTrustCommand = createPackTrustCommand();

/**
 * Prints the servers that were not compared and each change; returns the exit code when
 * there is nothing to ask about.
 */
function report(io: CliIo, pack: string, review: TrustReview, yes: boolean): number | undefined {
  for (const { server, reason } of review.unreachable)
    io.stderr.write(`MCP server ${pack}/${server} was not compared: ${reason}\n`);
  if (review.withheld.length === 0) {
    if (review.unreachable.length > 0) return 1;
    io.stdout.write(`Nothing changed: the MCP tools of ${pack} match their pins.\n`);
    return 0;
  }
  io.stdout.write(`${changesText(pack, review.withheld)}\n`);
  if (yes || isTerminal(io)) return undefined;
  io.stderr.write('Not trusted: stdin is not a terminal; run again with --yes to accept.\n');
  return 1;
}

/** The changes, server by server: a line per tool, then what changed under it. */
export function changesText(pack: string, withheld: readonly WithheldTool[]): string {
  const lines: string[] = [];
  let server: string | undefined;
  for (const w of withheld) {
    if (w.server !== server) {
      server = w.server;
      lines.push(`MCP server ${pack}/${server}:`);
    }
    lines.push(`  ${w.tool}`, ...changeLines(w.change).map((line) => `    ${line}`));
  }
  return lines.join('\n');
}

/** The owner's answer to the question on the terminal: only y or yes trusts. */
async function confirm(io: CliIo): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question('Trust these changes? [y/N] ', resolve);
      rl.once('close', () => resolve(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const isTerminal = (io: CliIo) => (io.stdin as { isTTY?: boolean }).isTTY === true;

const count = (tools: readonly unknown[]) =>
  `${tools.length} MCP tool${tools.length === 1 ? '' : 's'}`;

function homeOf(io: Pick<CliIo, 'env' | 'cwd'>): string {
  const env = withEnvFile(io.env, io.cwd);
  return path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
}
