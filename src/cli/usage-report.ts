import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import type { CliIo } from '../core/cli-io.ts';
import { ConfigError } from '../core/errors.ts';
import { openCoreReader } from '../store/read-only.ts';
import { createUsageAggregates } from '../usage/aggregates.ts';
import { createCalendar } from '../usage/calendar.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { usageOverview } from '../usage/overview.ts';
import { cliCatalog } from './catalog.ts';
import { usageTable } from './usage-table.ts';

/** The variables `satchel usage` reads; nothing else is required. */
const usageEnv = envSchema.pick({
  SATCHEL_HOME: true,
  SATCHEL_TIMEZONE: true,
  QUOTA_DAILY_TOKENS: true,
  QUOTA_SESSION_TOKENS: true,
  QUOTA_DAILY_USD: true,
});

const fail = (io: CliIo, message: string, code: number) => {
  io.stderr.write(`satchel usage: ${message}\n`);
  return code;
};

/**
 * The work of `satchel usage`, once its options are checked: the overview of the ledger in
 * SATCHEL_HOME over `days` days up to `now`, as the table or (`json`) as GET /api/usage
 * returns it; the exit code.
 */
export async function printUsage(
  io: CliIo,
  { days, json, now }: { days: number; json: boolean; now: number },
): Promise<number> {
  const env = usageEnv.safeParse(withEnvFile(io.env, io.cwd));
  if (!env.success)
    return fail(
      io,
      `invalid configuration:\n${env.error.issues.map((i) => `- ${i.message}`).join('\n')}`,
      1,
    );
  const home = path.resolve(io.cwd, env.data.SATCHEL_HOME);
  let catalog: ModelCatalog;
  try {
    catalog = cliCatalog(io);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(io, error.message, 1);
  }
  const reader = openCoreReader(home);
  if (!reader)
    return fail(
      io,
      `no usage yet: ${path.join(home, 'satchel.db')} does not exist. satchel creates it on its first start (npm start); check SATCHEL_HOME.`,
      1,
    );
  try {
    const overview = usageOverview({
      // Each edge says what its turns count as (`web`); the edges are not made for that.
      aggregates: createUsageAggregates(reader.db, (await import('../edges.ts')).turnSourceOf()),
      calendar: createCalendar(
        env.data.SATCHEL_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
      ),
      caps: {
        dailyTokens: env.data.QUOTA_DAILY_TOKENS,
        sessionTokens: env.data.QUOTA_SESSION_TOKENS,
        dailyUsd: env.data.QUOTA_DAILY_USD,
      },
      catalog,
      now,
      days,
    });
    io.stdout.write(json ? `${JSON.stringify(overview)}\n` : usageTable(overview, reader.file));
    return 0;
  } catch (error) {
    return fail(io, `could not read the ledger in ${reader.file}: ${(error as Error).message}`, 1);
  } finally {
    reader.close();
  }
}
