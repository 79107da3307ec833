import path from 'node:path';
import { parseArgs } from 'node:util';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import { openCoreReader } from '../store/read-only.ts';
import { createUsageAggregates } from '../usage/aggregates.ts';
import { createCalendar } from '../usage/calendar.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { DEFAULT_DAYS, MAX_DAYS } from '../usage/days.ts';
import { usageOverview } from '../usage/overview.ts';
import { parseArgsMessage } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';
import { usageInfo } from './help.ts';
import { cliCatalog } from './models.ts';
import { usageTable } from './usage-table.ts';

const USAGE_OPTIONS = {
  json: { type: 'boolean' },
  days: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

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

/** `satchel usage`; `clock` is injectable so tests can pin "today". */
export function createUsageCommand(deps: { clock?: Clock } = {}): CliCommand {
  const clock = deps.clock ?? systemClock;
  return {
    ...usageInfo,
    async run(args, io) {
      let options: { json?: boolean; days?: string; help?: boolean };
      try {
        options = parseArgs({
          args,
          options: USAGE_OPTIONS,
          strict: true,
          allowPositionals: false,
        }).values;
      } catch (error) {
        return fail(io, `${parseArgsMessage(error, USAGE_OPTIONS)}\n\n${usageInfo.help}`, 2);
      }
      if (options.help) {
        io.stdout.write(usageInfo.help);
        return 0;
      }
      const days = options.days === undefined ? DEFAULT_DAYS : Number(options.days);
      if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS)
        return fail(io, `--days must be a whole number from 1 to ${MAX_DAYS}`, 2);

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
          aggregates: createUsageAggregates(reader.db),
          calendar: createCalendar(
            env.data.SATCHEL_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
          ),
          caps: {
            dailyTokens: env.data.QUOTA_DAILY_TOKENS,
            sessionTokens: env.data.QUOTA_SESSION_TOKENS,
            dailyUsd: env.data.QUOTA_DAILY_USD,
          },
          catalog,
          now: clock.now(),
          days,
        });
        io.stdout.write(
          options.json ? `${JSON.stringify(overview)}\n` : usageTable(overview, reader.file),
        );
        return 0;
      } catch (error) {
        return fail(
          io,
          `could not read the ledger in ${reader.file}: ${(error as Error).message}`,
          1,
        );
      } finally {
        reader.close();
      }
    },
  };
}

export const usageCommand = createUsageCommand();
