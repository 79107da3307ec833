import { existsSync } from 'node:fs';
import path from 'node:path';
import { didYouMean } from '../packs/suggest.ts';
import { isProvider, PROVIDER_NAMES, type Provider } from '../providers/registry.ts';
import { unwritableTarget } from '../setup/env-output.ts';
import { createPrompter, PromptEnded, type Prompter } from '../setup/prompter.ts';
import { chooseModel, connectProvider } from '../setup/provider-step.ts';
import { connectTelegram } from '../setup/telegram-step.ts';
import { SetupFailed, type SetupUi } from '../setup/ui.ts';
import { doctorOn, nextSteps, type SetupResult, writeResult } from '../setup/write-step.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../telegram/settings.ts';
import { bundledCatalog } from '../usage/catalog.ts';
import { noMoreThan, parseCommandArgs, UsageError } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';
import { isTerminal } from './confirm.ts';
import { setupInfo } from './help.ts';

const OPTIONS = {
  provider: { type: 'string' },
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'telegram-token': { type: 'string' },
  'owner-id': { type: 'string' },
  out: { type: 'string' },
  yes: { type: 'boolean' },
} as const;

/** The answers given as flags; a question whose flag is missing is asked (or defaulted). */
interface Given {
  provider: Provider | undefined;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  model: string | undefined;
  telegramToken: string | undefined;
  ownerId: number | undefined;
  out: string;
  yes: boolean;
}

/** How long setup waits for the owner's first message to the bot. */
const OWNER_WAIT_MS = 180_000;

/**
 * `satchel setup` (SPEC §1): writes a working `.env` by asking, or from flags with `--yes`.
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
      if (given.yes && existsSync(given.out)) {
        const name = path.relative(io.cwd, given.out) || given.out;
        io.stderr.write(
          `satchel setup: ${name} exists, and setup never replaces it without asking; nothing was written.\n` +
            `Run setup in a terminal to be asked, write another file with --out FILE, or move ${name} away first.\n`,
        );
        return 1;
      }
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
  return {
    provider,
    apiKey: values['api-key'],
    baseUrl: values['base-url'],
    model: values.model,
    telegramToken: values['telegram-token'],
    ownerId: owner === undefined ? undefined : Number(owner),
    out: path.resolve(cwd, values.out ?? '.env'),
    yes: values.yes ?? false,
  };
}

async function converse(
  given: Given,
  io: CliIo,
  prompter: Prompter | undefined,
  ownerWaitMs: number,
): Promise<number> {
  const say = (text: string) => io.stdout.write(`${text}\n`);
  const ui: SetupUi = {
    prompter,
    say,
    signal: prompter?.interrupted ?? new AbortController().signal,
  };
  const name = path.relative(io.cwd, given.out) || given.out;
  let replace = false;
  if (prompter) {
    say(`satchel setup writes ${name} for npm start. Ctrl-C stops it without writing anything.`);
    if (existsSync(given.out)) {
      replace = await prompter.confirm(
        `${name} exists. Replace it (the old one is kept as a .bak)?`,
        false,
      );
      if (!replace) {
        say(`Nothing was written. (--out FILE writes another file.)`);
        return 1;
      }
    }
  }
  const provider = given.provider ?? (prompter ? await askProvider(prompter, say) : 'openai');
  const { access, models } = await connectProvider(provider, given, ui);
  const catalog = bundledCatalog();
  const model = await chooseModel(provider, models, given.model, { ui, catalog });
  if (!catalog.priced(provider, model, 'llm'))
    say(
      `! ${model} has no known price: the bundled packs' daily spend caps refuse it until you ` +
        'add its price to SATCHEL_HOME/models.yaml (the checks below print the line to add).',
    );
  const apiRoot = (io.env.TELEGRAM_API_ROOT || DEFAULT_TELEGRAM_API_ROOT).replace(/\/+$/, '');
  const telegram = await connectTelegram(
    { token: given.telegramToken, ownerId: given.ownerId },
    { ui, apiRoot, ownerWaitMs },
  );
  const result: SetupResult = { provider, access, model, telegram, apiRoot };
  const { text, backup } = writeResult(given.out, result, replace);
  say(
    `\nWrote ${name} (readable by you only).${backup ? ` The old one is ${path.relative(io.cwd, backup)}.` : ''}`,
  );
  say('\nChecking it as npx satchel doctor does:\n');
  const doctor = await doctorOn(text, io.env);
  io.stdout.write(doctor.report);
  if (doctor.failed) {
    say(
      `\n${name} is written, but a check failed: fix what is marked ✗ above, then run npx satchel doctor.`,
    );
    return 1;
  }
  say(`\n${nextSteps(given.out, io.cwd, result)}`);
  return 0;
}

async function askProvider(prompter: Prompter, say: (text: string) => void): Promise<Provider> {
  say(
    [
      '\nModel provider:',
      '  1) openai  OpenAI, or any OpenAI-compatible server (Ollama, LM Studio, OpenRouter…)',
      '  2) groq    Groq (its key also transcribes voice messages)',
      '  3) gemini  Google Gemini',
    ].join('\n'),
  );
  const choices: Provider[] = ['openai', 'groq', 'gemini'];
  for (;;) {
    const answer = (await prompter.ask('Number or name [1: openai]: ', '1')).toLowerCase();
    const picked = /^\d$/.test(answer) ? choices[Number(answer) - 1] : answer;
    if (picked && isProvider(picked)) return picked;
    say(`"${answer}" is not one of them.`);
  }
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
