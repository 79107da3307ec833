import path from 'node:path';
import { parseEnv } from 'node:util';
import { lintEnvText } from '../config/env-lint.ts';
import { type Check, formatChecks } from '../ops/check.ts';
import { runDoctor } from '../ops/doctor.ts';
import { type Provider, type ProviderAccess, specOf } from '../providers/registry.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../telegram/settings.ts';
import { envText, unwritable, writeEnvFile } from './env-output.ts';
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
}

/** The `.env` variables, in the order a person reads them. */
export function envVariables(result: SetupResult): [string, string][] {
  const { env } = specOf(result.provider);
  const vars: [string, string][] = [['LLM_PROVIDER', result.provider]];
  if (result.access.apiKey) vars.push([env.apiKey, result.access.apiKey]);
  if (result.access.baseUrl) vars.push([env.baseUrl, result.access.baseUrl]);
  vars.push(['LLM_MODEL', result.model]);
  if (result.telegram) {
    vars.push(['TELEGRAM_BOT_TOKEN', result.telegram.token]);
    if (result.apiRoot !== DEFAULT_TELEGRAM_API_ROOT)
      vars.push(['TELEGRAM_API_ROOT', result.apiRoot]);
    vars.push(['ALLOWED_USER_IDS', String(result.telegram.ownerId)]);
  }
  return vars;
}

/**
 * Writes the file (0600; an existing one only when `replace`, kept as a backup) and returns
 * its text and the backup's name.
 */
export function writeResult(
  file: string,
  result: SetupResult,
  replace: boolean,
): { text: string; backup: string | undefined } {
  const vars = envVariables(result);
  const bad = vars.find(([, value]) => unwritable(value));
  if (bad)
    throw new SetupFailed(
      `${bad[0]} holds a line break or a quote, which .env cannot keep on one line`,
      'Give the value without it.',
    );
  const text = envText(vars);
  try {
    return { text, backup: writeEnvFile(file, text, replace) };
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
