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
import { DEFAULT_DAYS, MAX_DAYS, usageOverview } from '../usage/overview.ts';
import { parseArgsMessage } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';
import { cliCatalog } from './models.ts';
import { usageTable } from './usage-table.ts';

const USAGE_OPTIONS = {
  json: { type: 'boolean' },
  days: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const HELP = `Usage: npx satchel usage [--json] [--days N]

Tokens and spend from the ledger in SATCHEL_HOME/satchel.db: today, the last 7 and 30 days
against the caps, per day, by model, by pack, by kind, and the recent turns. The same
numbers as the dashboard. Reads the database read-only: works while satchel runs or not,
and needs no Telegram token or model key (SATCHEL_HOME, SATCHEL_TIMEZONE and the QUOTA_*
caps are read from the environment and .env).

Options:
  --json      print exactly the JSON of the dashboard's GET /api/usage
  --days N    how many days the per-day, model, pack and kind lists cover (1-${MAX_DAYS}, default ${DEFAULT_DAYS})
  -h, --help  show this help
`;

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
    path: ['usage'],
    summary: 'tokens and spend: today, 7 and 30 days, by model, pack and kind',
    help: HELP,
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
        return fail(io, `${parseArgsMessage(error, USAGE_OPTIONS)}\n\n${HELP}`, 2);
      }
      if (options.help) {
        io.stdout.write(HELP);
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
