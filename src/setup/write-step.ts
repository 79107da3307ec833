import path from 'node:path';
import { parseEnv } from 'node:util';
import { lintEnvText } from '../config/env-lint.ts';
import { type Check, formatChecks } from '../ops/check.ts';
import { runDoctor } from '../ops/doctor.ts';
import { type Provider, type ProviderAccess, specOf } from '../providers/registry.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../telegram/settings.ts';
import { type EnvChange, mergeEnv } from './env-merge.ts';
import { unwritable, writeEnvFile } from './env-output.ts';
import type { TelegramAnswers } from './telegram-step.ts';
import { SetupFailed } from './ui.ts';

/** Everything setup learned, ready to become `.env`. */
export interface SetupResult {
  provider: Provider;
  access: ProviderAccess;
  model: string;
  telegram: TelegramAnswers | undefined;
  /** TELEGRAM_API_ROOT from the environment, written along when it is not Telegram's own. */
  apiRoot: string;
  /** The other answers (the owner list, speech-to-text, web search, the dashboard token). */
  more?: ReadonlyMap<string, string | undefined>;
}

/**
 * The `.env` answers, in the order a person reads them: a value, or undefined for a
 * variable setup drops (a base URL given up, a bot removed).
 */
export function envVariables(result: SetupResult): Map<string, string | undefined> {
  const { env } = specOf(result.provider);
  const vars = new Map<string, string | undefined>([
    ['LLM_PROVIDER', result.provider],
    [env.apiKey, result.access.apiKey],
    [env.baseUrl, result.access.baseUrl],
    ['LLM_MODEL', result.model],
    ['TELEGRAM_BOT_TOKEN', result.telegram?.token],
  ]);
  if (result.telegram && result.apiRoot !== DEFAULT_TELEGRAM_API_ROOT)
    vars.set('TELEGRAM_API_ROOT', result.apiRoot);
  for (const [name, value] of result.more ?? []) vars.set(name, value);
  return vars;
}

/**
 * Writes the file (0600): a new one from the answers, or — `old` being the text of the one
 * there — that file with the answers merged in (env-merge.ts). Returns the text written
 * and what changed.
 */
export function writeResult(
  file: string,
  result: SetupResult,
  old: string | undefined,
): { text: string; changes: EnvChange[]; kept: string[] } {
  const answers = envVariables(result);
  const bad = [...answers].find(([, value]) => value !== undefined && unwritable(value));
  if (bad)
    throw new SetupFailed(
      `${bad[0]} holds a line break or a quote, which .env cannot keep on one line`,
      'Give the value without it.',
    );
  const merged = mergeEnv(old, answers);
  try {
    writeEnvFile(file, merged.text, old !== undefined);
    return merged;
  } catch (error) {
    // Checked before the questions; what changed since (a folder removed, a file that
    // appeared) is said in one sentence, never as a stack.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new SetupFailed(
      code === 'EEXIST'
        ? `${file} appeared while setup ran, and setup replaces no file without asking`
        : `${file} could not be written (${code})`,
      'Check the folder and run setup again.',
    );
  }
}

/**
 * `satchel doctor`'s checks on what was written, as `npm start` would see it: the file's
 * variables under the environment's (a variable set in the environment wins).
 */
export async function doctorOn(
  text: string,
  env: Record<string, string | undefined>,
): Promise<{ report: string; failed: boolean }> {
  const merged: Record<string, string | undefined> = { ...parseEnv(text) };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  // The edges (Telegram's token and allowlist) load here only: setup's checklist needs them.
  const { edgesOf, edgeVariables } = await import('../edges.ts');
  const checks: Check[] = await runDoctor({
    env: merged,
    envFileProblems: lintEnvText(text, edgeVariables()),
    edges: edgesOf,
  });
  return { report: formatChecks(checks), failed: checks.some((c) => c.status === 'fail') };
}

/** What to do next, for the file written at `file` from `cwd`. */
export function nextSteps(file: string, cwd: string, result: SetupResult): string {
  const isDefault = path.resolve(cwd, '.env') === file;
  const lines = ['Next:'];
  if (!isDefault)
    lines.push(
      `  npm start reads .env in the folder it runs in: copy ${path.relative(cwd, file)} there as .env.`,
    );
  lines.push(
    '  npm start',
    '  then open the web chat address it prints (satchel web chat: http://127.0.0.1:8787/chat?token=…)',
  );
  if (result.telegram) lines.push('  and message your bot on Telegram: it answers you alone.');
  return lines.join('\n');
}
