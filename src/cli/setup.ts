import path from 'node:path';
import type { CliIo } from '../core/cli-io.ts';
import { didYouMean } from '../packs/suggest.ts';
import { isProvider, PROVIDER_NAMES } from '../providers/registry.ts';
import { unwritableTarget } from '../setup/env-output.ts';
import { createPrompter, PromptEnded } from '../setup/prompter.ts';
import { SEARCH_CHOICES, type SearchChoice } from '../setup/search-step.ts';
import { converse, type Given } from '../setup/session.ts';
import { SetupFailed } from '../setup/ui.ts';
import { noMoreThan, parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand } from './command.ts';
import { isTerminal } from './confirm.ts';
import { setupInfo } from './help.ts';

const OPTIONS = {
  provider: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  free: { type: 'boolean' },
  'not-free': { type: 'boolean' },
  'telegram-token': { type: 'string' },
  'owner-id': { type: 'string' },
  stt: { type: 'string' },
  'stt-model': { type: 'string' },
  'stt-api-key': { type: 'string' },
  search: { type: 'string' },
  'search-key': { type: 'string' },
  'search-url': { type: 'string' },
  out: { type: 'string' },
  yes: { type: 'boolean' },
} as const;

/** How long setup waits for the owner's first message to the bot. */
const OWNER_WAIT_MS = 180_000;

/**
 * `satchel setup` (SPEC §1): writes a working `.env` by asking, or from flags with `--yes`;
 * run again, it merges into the file there (session.ts).
 * `ownerWaitMs` is how long it waits for the owner's message (tests shorten it).
 */
export function createSetupCommand(options: { ownerWaitMs: number }): CliCommand {
  return {
    ...setupInfo,
    async run(args, io) {
      const given = parseGiven(args, io.cwd);
      if (!given.yes && !isTerminal(io)) {
        io.stderr.write(
          'satchel setup: there is no terminal to ask in, so nothing was asked or written.\n' +
            'Run it in a terminal, or give the answers as flags with --yes (npx satchel setup --help).\n',
        );
        return 1;
      }
      const refused = unwritableTarget(given.out, path.relative(io.cwd, given.out) || given.out);
      if (refused) return failed(refused, io);
      const prompter = given.yes ? undefined : createPrompter(io);
      try {
        return await converse(given, io, prompter, options.ownerWaitMs);
      } catch (error) {
        return failed(error, io);
      } finally {
        prompter?.close();
      }
    },
  };
}

export const setupCommand = createSetupCommand({ ownerWaitMs: OWNER_WAIT_MS });

function parseGiven(args: string[], cwd: string): Given {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  noMoreThan(positionals, 0);
  const provider = values.provider;
  if (provider !== undefined && !isProvider(provider))
    throw new UsageError(
      `--provider must be one of ${PROVIDER_NAMES.join(', ')}, not "${provider}"${didYouMean(provider, PROVIDER_NAMES)}`,
    );
  const owner = values['owner-id'];
  if (owner !== undefined && !/^[1-9]\d{0,15}$/.test(owner))
    throw new UsageError(`--owner-id is your numeric Telegram user id, not "${owner}"`);
  if (owner !== undefined && values.yes && values['telegram-token'] === undefined)
    throw new UsageError('--owner-id goes with --telegram-token');
  if (values.free && values['not-free']) throw new UsageError('--free and --not-free: give one');
  const search = values.search;
  if (search !== undefined && !(SEARCH_CHOICES as readonly string[]).includes(search))
    throw new UsageError(
      `--search must be one of ${SEARCH_CHOICES.join(', ')}, not "${search}"${didYouMean(search, SEARCH_CHOICES)}`,
    );
  return {
    provider,
    apiKey: values['api-key'],
    baseUrl: values['base-url'],
    model: values.model,
    free: values.free ? true : values['not-free'] ? false : undefined,
    telegramToken: values['telegram-token'],
    ownerId: owner === undefined ? undefined : Number(owner),
    stt: values.stt,
    sttModel: values['stt-model'],
    sttApiKey: values['stt-api-key'],
    search: search as SearchChoice | undefined,
    searchKey: values['search-key'],
    searchUrl: values['search-url'],
    out: path.resolve(cwd, values.out ?? '.env'),
    yes: values.yes ?? false,
  };
}

function failed(error: unknown, io: CliIo): number {
  if (error instanceof SetupFailed) {
    io.stderr.write(`satchel setup: ${error.message}\n`);
    if (error.fix) io.stderr.write(`    fix: ${error.fix}\n`);
    io.stderr.write('Nothing was written.\n');
    return 1;
  }
  if (error instanceof PromptEnded) {
    io.stderr.write(`\nsatchel setup: ${error.message}; nothing was written.\n`);
    return error.reason === 'interrupted' ? 130 : 1;
  }
  throw error;
}
