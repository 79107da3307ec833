import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { CliIo } from '../cli/command.ts';
import { satchelHome } from '../config/env-file.ts';
import { isProvider, type Provider, specOf } from '../providers/registry.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../telegram/settings.ts';
import { keptDashboardToken } from './dashboard-token.ts';
import { keepEnvBackup } from './env-backup.ts';
import { describeChanges } from './env-merge.ts';
import { FREE_CHAT, FREE_SPEECH, writeFreeModels } from './free-models.ts';
import { freeCatalog } from './free-step.ts';
import { localServer } from './local-server.ts';
import { visionChoice } from './model-menu.ts';
import type { Prompter } from './prompter.ts';
import { chooseModel, connectProvider } from './provider-step.ts';
import { chooseSearch, type SearchGiven } from './search-step.ts';
import { chooseSpeech, type SpeechGiven } from './speech-step.ts';
import { connectTelegram } from './telegram-step.ts';
import type { SetupUi } from './ui.ts';
import { doctorOn, nextSteps, type SetupResult, writeResult } from './write-step.ts';

/** The answers given as flags; a question whose flag is missing is asked (or defaulted). */
export interface Given extends SpeechGiven, SearchGiven {
  provider: Provider | undefined;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  model: string | undefined;
  telegramToken: string | undefined;
  ownerId: number | undefined;
  /** `--free` (true) / `--not-free` (false); undefined: asked about a local server. */
  free: boolean | undefined;
  out: string;
  yes: boolean;
}

const PROVIDER_MENU = [
  {
    value: 'openai',
    note: 'OpenAI, or any OpenAI-compatible server (Ollama, LM Studio, OpenRouter…)',
  },
  { value: 'groq', note: 'Groq (its key also transcribes voice messages)' },
  { value: 'gemini', note: 'Google Gemini' },
];

/**
 * One run of `satchel setup` (SPEC §1) once its target is known to be writable: asks (or
 * takes from flags, or from the `.env` already there) each answer, writes the file — an
 * existing one merged, its old text kept in SATCHEL_HOME/backups/ — then a free server's
 * models at $0 into the owner's catalog, and ends with doctor's checklist. Exit code.
 */
export async function converse(
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
  const old = existsSync(given.out) ? readFileSync(given.out, 'utf8') : undefined;
  const current = old === undefined ? {} : parseEnv(old);
  // Where npm start would keep its state: the file's SATCHEL_HOME under the environment's.
  const seen = { ...current, ...definedOf(io.env) };
  const home = satchelHome(seen, io.cwd);
  const backups = path.relative(io.cwd, path.join(home, 'backups')) || home;
  if (prompter) {
    say(`satchel setup writes ${name} for npm start. Ctrl-C stops it without writing anything.`);
    if (old !== undefined) {
      const update = await prompter.confirm(
        `${name} exists. Update it? Its values are the defaults, every other variable stays, and the old file is kept in ${backups}/.`,
        true,
      );
      if (!update) {
        say('Nothing was written. (--out FILE writes another file.)');
        return 1;
      }
    }
  }
  const before = isProvider(current.LLM_PROVIDER ?? '')
    ? (current.LLM_PROVIDER as Provider)
    : undefined;
  const provider =
    given.provider ??
    (prompter
      ? ((await prompter.choose('Model provider', PROVIDER_MENU, {
          fallback: Math.max(
            0,
            PROVIDER_MENU.findIndex((c) => c.value === before),
          ),
        })) as Provider)
      : (before ?? 'openai'));
  const { env } = specOf(provider);
  const { access, models } = await connectProvider(provider, given, ui, {
    apiKey: current[env.apiKey],
    baseUrl: current[env.baseUrl],
  });
  const modelsFile = seen.SATCHEL_MODELS
    ? path.resolve(io.cwd, seen.SATCHEL_MODELS)
    : path.join(home, 'models.yaml');
  const server = { provider, baseUrl: access.baseUrl, models };
  const { catalog, free } = await freeCatalog(server, given.free, { ui, file: modelsFile });
  const model = await chooseModel(provider, models, given.model, {
    ui,
    catalog,
    current: provider === before ? current.LLM_MODEL : undefined,
  });
  if (!catalog.priced(provider, model, 'llm'))
    say(
      `! ${model} has no known price: the bundled packs' daily spend caps refuse it until you ` +
        `add its price to ${modelsFile} (the checks below print the line to add).`,
    );
  const vision = current.VISION_MODEL
    ? undefined
    : visionChoice(models, model, specOf(provider).defaults.vision);
  if (vision)
    say(
      vision.guessed
        ? `! The server lists no model that says it sees images: photos go to ${vision.model} (VISION_MODEL); set VISION_MODEL to one that sees.`
        : `Photos are described by ${vision.model} (VISION_MODEL).`,
    );
  const apiRoot = (io.env.TELEGRAM_API_ROOT || DEFAULT_TELEGRAM_API_ROOT).replace(/\/+$/, '');
  const owners = (current.ALLOWED_USER_IDS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const telegram = await connectTelegram(
    { token: given.telegramToken, ownerId: given.ownerId },
    { ui, apiRoot, ownerWaitMs },
    { token: current.TELEGRAM_BOT_TOKEN, ownerId: owners[0] ? Number(owners[0]) : undefined },
  );
  const speech = await chooseSpeech(given, current, { provider, access }, ui);
  const more = new Map([...speech.vars, ...(await chooseSearch(given, current, ui))]);
  if (vision) more.set('VISION_MODEL', vision.model);
  if (telegram && String(telegram.ownerId) !== owners[0])
    more.set(
      'ALLOWED_USER_IDS',
      [String(telegram.ownerId), ...owners.filter((id) => id !== String(telegram.ownerId))].join(
        ',',
      ),
    );
  // Written only when the file has none, reusing the token kept in SATCHEL_HOME (SPEC §1).
  if (!current.DASHBOARD_TOKEN)
    more.set('DASHBOARD_TOKEN', keptDashboardToken(home) ?? randomBytes(24).toString('hex'));
  const result: SetupResult = { provider, access, model, telegram, apiRoot, more };
  const kept = old === undefined ? undefined : keepEnvBackup(given.out, home, new Date());
  const { text, changes, kept: untouched } = writeResult(given.out, result, old);
  say(
    `\nWrote ${name} (readable by you only).${kept ? ` The old one is kept as ${path.relative(io.cwd, kept)}.` : ''}`,
  );
  if (old !== undefined) say(describeChanges(name, changes, untouched));
  const entries: (readonly [string, Record<string, number>])[] = free.map(
    (m) => [`${provider}:${m}`, FREE_CHAT] as const,
  );
  // A speech server of the owner's on this machine or the network is free unless --not-free.
  if (speech.server && localServer(speech.server.baseUrl) && given.free !== false)
    entries.push([`openai:${speech.server.model}`, FREE_SPEECH] as const);
  const added = entries.length > 0 ? writeFreeModels(modelsFile, entries) : [];
  if (added.length > 0)
    say(`Wrote ${added.length} model(s) at $0 to ${modelsFile}: ${added.join(', ')}.`);
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

function definedOf(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
}
