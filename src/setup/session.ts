import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { BACKUPS_FOLDER } from '../backup/backups-folder.ts';
import { satchelHome } from '../config/env-file.ts';
import type { CliIo } from '../core/cli-io.ts';
import { keptToken } from '../dashboard/kept-token.ts';
import { isProvider, type Provider, specOf } from '../providers/registry.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../telegram/settings.ts';
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

/** The file setup writes and what is there already. */
interface Target {
  /** How the person wrote it (relative to the working directory). */
  name: string;
  /** The text of the file there, if any. */
  old: string | undefined;
  current: Readonly<Record<string, string | undefined>>;
  /** SATCHEL_HOME as npm start would see it: the file's under the environment's. */
  home: string;
  /** The owner's model catalog (SATCHEL_MODELS, else SATCHEL_HOME/models.yaml). */
  modelsFile: string;
}

/** The chat provider, its access and the model, as the first questions settle them. */
interface Chat {
  provider: Provider;
  access: SetupResult['access'];
  model: string;
  /** The server's models to write at $0 (none when it is not free). */
  free: string[];
  vision: string | undefined;
}

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
  const signal = prompter?.interrupted ?? new AbortController().signal;
  const ui: SetupUi = { prompter, say, signal };
  const target = targetOf(given.out, io);
  if (prompter && !(await consent(target, io.cwd, prompter, say))) return 1;
  const chat = await chatStep(given, target, ui);
  const { current } = target;
  // The environment's, else the one `.env` already names (a self-hosted Bot API server).
  const apiRoot = (
    io.env.TELEGRAM_API_ROOT ||
    current.TELEGRAM_API_ROOT ||
    DEFAULT_TELEGRAM_API_ROOT
  ).replace(/\/+$/, '');
  const owners = idsOf(current.ALLOWED_USER_IDS);
  const telegram = await connectTelegram(
    { token: given.telegramToken, ownerId: given.ownerId },
    { ui, apiRoot, ownerWaitMs },
    { token: current.TELEGRAM_BOT_TOKEN, ownerId: owners[0] ? Number(owners[0]) : undefined },
  );
  const speech = await chooseSpeech(given, current, chat, ui);
  const more = new Map([...speech.vars, ...(await chooseSearch(given, current, ui))]);
  if (chat.vision) more.set('VISION_MODEL', chat.vision);
  // The owner first, the others listed before kept after.
  const owner = telegram ? String(telegram.ownerId) : undefined;
  if (owner && owner !== owners[0])
    more.set('ALLOWED_USER_IDS', [owner, ...owners.filter((id) => id !== owner)].join(','));
  // Written only when the file has none, reusing the token kept in SATCHEL_HOME (SPEC §1).
  if (!current.DASHBOARD_TOKEN) more.set('DASHBOARD_TOKEN', keptToken(target.home));
  const result: SetupResult = { ...chat, telegram, apiRoot, more };
  const text = save(given, target, result, io.cwd, say);
  const entries: (readonly [string, Record<string, number>])[] = chat.free.map(
    (m) => [`${chat.provider}:${m}`, FREE_CHAT] as const,
  );
  // A speech server of the owner's on this machine or the network is free unless --not-free.
  if (speech.server && localServer(speech.server.baseUrl) && given.free !== false)
    entries.push([`openai:${speech.server.model}`, FREE_SPEECH] as const);
  const added = entries.length > 0 ? writeFreeModels(target.modelsFile, entries) : [];
  if (added.length > 0)
    say(`Wrote ${added.length} model(s) at $0 to ${target.modelsFile}: ${added.join(', ')}.`);
  return check(text, { given, target, result, io, say });
}

function targetOf(file: string, io: CliIo): Target {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const current = old === undefined ? {} : parseEnv(old);
  const seen = { ...current, ...definedOf(io.env) };
  const home = satchelHome(seen, io.cwd);
  return {
    name: path.relative(io.cwd, file) || file,
    old,
    current,
    home,
    modelsFile: seen.SATCHEL_MODELS
      ? path.resolve(io.cwd, seen.SATCHEL_MODELS)
      : path.join(home, 'models.yaml'),
  };
}

/** The first words in a terminal, and the question before an existing file is updated. */
async function consent(
  target: Target,
  cwd: string,
  prompter: Prompter,
  say: (text: string) => void,
): Promise<boolean> {
  say(
    `satchel setup writes ${target.name} for npm start. Ctrl-C stops it without writing anything.`,
  );
  if (target.old === undefined) return true;
  const backups = path.relative(cwd, path.join(target.home, BACKUPS_FOLDER));
  const update = await prompter.confirm(
    `${target.name} exists. Update it? Its values are the defaults, every other variable stays, and the old file is kept in ${backups}/.`,
    true,
  );
  if (!update) say('Nothing was written. (--out FILE writes another file.)');
  return update;
}

/** The provider, its key (checked), whether its server is free, the model and VISION_MODEL. */
async function chatStep(given: Given, target: Target, ui: SetupUi): Promise<Chat> {
  const { current } = target;
  const before = isProvider(current.LLM_PROVIDER ?? '')
    ? (current.LLM_PROVIDER as Provider)
    : undefined;
  const fallback = Math.max(
    0,
    PROVIDER_MENU.findIndex((c) => c.value === before),
  );
  const provider =
    given.provider ??
    (ui.prompter
      ? ((await ui.prompter.choose('Model provider', PROVIDER_MENU, { fallback })) as Provider)
      : (before ?? 'openai'));
  const spec = specOf(provider);
  const { access, models } = await connectProvider(provider, given, ui, {
    apiKey: current[spec.env.apiKey],
    baseUrl: current[spec.env.baseUrl],
  });
  const server = { provider, baseUrl: access.baseUrl, models };
  const { catalog, free } = await freeCatalog(server, given.free, {
    ui,
    file: target.modelsFile,
  });
  const model = await chooseModel(provider, models, given.model, {
    ui,
    catalog,
    current: provider === before ? current.LLM_MODEL : undefined,
  });
  if (!catalog.priced(provider, model, 'llm'))
    ui.say(
      `! ${model} has no known price: the bundled packs' daily spend caps refuse it until you ` +
        `add its price to ${target.modelsFile} (the checks below print the line to add).`,
    );
  const vision = current.VISION_MODEL
    ? undefined
    : visionChoice(models, model, spec.defaults.vision);
  if (vision)
    ui.say(
      vision.guessed
        ? `! The server lists no model that says it sees images: photos go to ${vision.model} (VISION_MODEL); set VISION_MODEL to one that sees.`
        : `Photos are described by ${vision.model} (VISION_MODEL).`,
    );
  return { provider, access, model, free, vision: vision?.model };
}

/** Keeps the old file in SATCHEL_HOME/backups/, writes the new one, says what changed. */
function save(
  given: Given,
  target: Target,
  result: SetupResult,
  cwd: string,
  say: (text: string) => void,
): string {
  const kept =
    target.old === undefined ? undefined : keepEnvBackup(given.out, target.home, new Date());
  const { text, changes, kept: untouched } = writeResult(given.out, result, target.old);
  const where = kept ? ` The old one is kept as ${path.relative(cwd, kept)}.` : '';
  say(`\nWrote ${target.name} (readable by you only).${where}`);
  if (target.old !== undefined) say(describeChanges(target.name, changes, untouched));
  return text;
}

/** doctor's checklist on what was written, then what to do next: 0, or 1 after a ✗. */
async function check(
  text: string,
  run: { given: Given; target: Target; result: SetupResult; io: CliIo; say: (t: string) => void },
): Promise<number> {
  const { io, say } = run;
  say('\nChecking it as npx satchel doctor does:\n');
  const doctor = await doctorOn(text, io.env);
  io.stdout.write(doctor.report);
  if (doctor.failed) {
    say(
      `\n${run.target.name} is written, but a check failed: fix what is marked ✗ above, then run npx satchel doctor.`,
    );
    return 1;
  }
  say(`\n${nextSteps(run.given.out, io.cwd, run.result)}`);
  return 0;
}

const idsOf = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);

function definedOf(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
}
