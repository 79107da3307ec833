import { parseArgs } from 'node:util';
import type { CliIo } from '../core/cli-io.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import { DEFAULT_DAYS, MAX_DAYS } from '../usage/days.ts';
import { parseArgsMessage } from './args.ts';
import type { CliCommand } from './command.ts';
import { usageInfo } from './help.ts';

const USAGE_OPTIONS = {
  json: { type: 'boolean' },
  days: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const fail = (io: CliIo, message: string, code: number) => {
  io.stderr.write(`satchel usage: ${message}\n`);
  return code;
};

/**
 * `satchel usage`; `clock` is injectable so tests can pin "today". The options are checked
 * before the ledger's code loads (usage-report.ts).
 */
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

      const { printUsage } = await import('./usage-report.ts');
      return printUsage(io, { days, json: options.json ?? false, now: clock.now() });
    },
  };
}

export const usageCommand = createUsageCommand();
