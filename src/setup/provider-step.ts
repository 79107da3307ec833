import { ProviderError } from '../core/errors.ts';
import type { Check } from '../ops/check.ts';
import { providerFailure } from '../ops/doctor-remote.ts';
import { listModels } from '../providers/probe.ts';
import {
  type Provider,
  type ProviderAccess,
  type ProviderKeys,
  specOf,
} from '../providers/registry.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { modelMenu } from './model-menu.ts';
import { SetupFailed, type SetupUi } from './ui.ts';

/** How long one model-list request may take. */
const PROBE_MS = 15_000;
/** Unpriced models shown in the menu; the rest can still be typed by name. */
const OTHERS_SHOWN = 10;

export interface ProviderAnswers {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}

/**
 * The provider's key (and base URL), checked with one model-list request: asked again after
 * a refusal when there is someone to ask, else a SetupFailed naming what failed. `current`
 * holds what `.env` has: offered as the default (Enter keeps it), and under `--yes` used
 * where no flag is given. Resolves with the access that worked and the models it lists.
 */
export async function connectProvider(
  provider: Provider,
  given: ProviderAnswers,
  ui: SetupUi,
  current: ProviderAnswers = {},
): Promise<{ access: ProviderAccess; models: string[] }> {
  const { apiKey: keyVar } = specOf(provider).env;
  let kept = { ...current };
  const baseUrlOf = async () =>
    given.baseUrl ?? (ui.prompter ? await askBaseUrl(provider, ui, kept.baseUrl) : kept.baseUrl);
  let baseUrl = await baseUrlOf();
  for (;;) {
    const apiKey =
      given.apiKey ??
      (ui.prompter ? await askKey(provider, keyVar, baseUrl, ui, kept.apiKey) : kept.apiKey);
    const problem = accessProblem(provider, keyVar, apiKey, baseUrl);
    const access = { apiKey: apiKey || undefined, baseUrl: baseUrl || undefined };
    const result = problem
      ? { check: problem, keyRefused: false }
      : await probe(provider, access, ui.signal);
    if ('models' in result) {
      ui.say(`✓ ${provider}: key accepted; it offers ${result.models.length} model(s)`);
      return { access, models: result.models };
    }
    // Someone to ask, and something not given as a flag to ask again: the key after a
    // refusal, else the server and the key.
    const retry = result.keyRefused
      ? given.apiKey === undefined
      : given.apiKey === undefined || given.baseUrl === undefined;
    if (!ui.prompter || !retry) throw SetupFailed.from(result.check);
    ui.say(
      `✗ ${result.check.title}\n    fix: ${result.check.fix ?? ''}\nTry again (Ctrl-C stops).`,
    );
    // What failed is not offered again as the default.
    kept = result.keyRefused ? { ...kept, apiKey: undefined } : {};
    if (!result.keyRefused) baseUrl = await baseUrlOf();
  }
}

async function askBaseUrl(
  provider: Provider,
  ui: SetupUi,
  current: string | undefined,
): Promise<string | undefined> {
  // Only OpenAI's API has compatible servers worth asking about (Ollama, LM Studio, routers).
  if (!ui.prompter || provider !== 'openai') return current;
  const answer = await ui.prompter.ask(
    current
      ? `Base URL of an OpenAI-compatible server, including /v1 (Enter keeps ${current}; "none": OpenAI itself): `
      : 'Base URL of an OpenAI-compatible server, including /v1 (Enter: OpenAI itself): ',
  );
  if (answer.toLowerCase() === 'none') return undefined;
  return answer || current;
}

async function askKey(
  provider: Provider,
  keyVar: string,
  baseUrl: string | undefined,
  ui: SetupUi,
  current: string | undefined,
): Promise<string | undefined> {
  if (!ui.prompter) return undefined;
  const optional = current
    ? ' (Enter keeps the current one)'
    : baseUrl
      ? ' (Enter if the server needs none)'
      : '';
  const answer = await ui.prompter.askSecret(
    `${provider} API key for ${keyVar}${optional}, not shown as you type: `,
  );
  return answer || current;
}

function accessProblem(
  provider: Provider,
  keyVar: string,
  apiKey: string | undefined,
  baseUrl: string | undefined,
): Check | undefined {
  if (baseUrl !== undefined && !isHttpUrl(baseUrl))
    return {
      status: 'fail',
      title: `${provider}: the base URL "${baseUrl}" is not an http(s) URL`,
      fix: "Give the server's address, e.g. --base-url http://127.0.0.1:11434/v1 for Ollama.",
    };
  if (!apiKey && !baseUrl)
    return {
      status: 'fail',
      title: `${provider}: no API key (${keyVar})`,
      fix: `Give the key with --api-key (${provider} needs one unless --base-url names a server that does not).`,
    };
  if (apiKey && /[\s']/.test(apiKey))
    return {
      status: 'fail',
      title: `${provider}: the API key has spaces or quotes in it`,
      fix: 'Paste the key alone, as the provider shows it.',
    };
  return undefined;
}

async function probe(
  provider: Provider,
  access: ProviderAccess,
  signal: AbortSignal,
): Promise<{ models: string[] } | { check: Check; keyRefused: boolean }> {
  const providers = { openai: {}, gemini: {}, groq: {}, [provider]: access } as ProviderKeys;
  const timeout = AbortSignal.any([signal, AbortSignal.timeout(PROBE_MS)]);
  try {
    return { models: await listModels({ providers }, provider, timeout) };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const keyRefused = error instanceof ProviderError && error.hint !== undefined;
    return { check: providerFailure(provider, error, timeout, PROBE_MS), keyRefused };
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/**
 * The chat model: `--model` when the key can use it, else picked from the menu (priced
 * first; `current`, the model `.env` names, is the default when listed), else — with no one
 * to ask — `current` or the provider's default when listed, else the first priced one.
 */
export async function chooseModel(
  provider: Provider,
  listed: readonly string[],
  given: string | undefined,
  deps: { ui: SetupUi; catalog: ModelCatalog; current?: string | undefined },
): Promise<string> {
  const menu = modelMenu(provider, listed, deps.catalog, specOf(provider).defaults.chat);
  if (given !== undefined) {
    if (listed.includes(given)) return given;
    throw new SetupFailed(
      `${provider} does not offer the model "${given}" to this key`,
      `Pick one it lists${
        menu.length > 0
          ? `, e.g. ${menu
              .slice(0, 6)
              .map((o) => o.model)
              .join(', ')}`
          : ''
      }.`,
    );
  }
  if (menu.length === 0)
    throw new SetupFailed(
      `${provider} lists no chat model for this key (${listed.length} model(s) in all)`,
      'Name the model with --model, or check that the key (or the server) serves chat models.',
    );
  const current = deps.current && listed.includes(deps.current) ? deps.current : undefined;
  const prompter = deps.ui.prompter;
  if (!prompter) return current ?? menu[0]!.model;
  const shown = [
    ...menu.filter((o) => o.price),
    ...menu.filter((o) => !o.price).slice(0, OTHERS_SHOWN),
  ];
  if (current && !shown.some((o) => o.model === current))
    shown.push(menu.find((o) => o.model === current) ?? { model: current, price: undefined });
  deps.ui.say('\nChat model (USD per million tokens; priced models first):');
  const unpriced = shown.some((o) => !o.price);
  const picked = await prompter.choose(
    'Chat model',
    shown.map((o) => ({ value: o.model, note: o.price ?? 'no known price (*)' })),
    {
      fallback: Math.max(0, current ? shown.findIndex((o) => o.model === current) : 0),
      // A model left out of the list can still be named.
      other: (answer) => (listed.includes(answer) ? answer : undefined),
      ...(unpriced || menu.length > shown.length
        ? { footer: belowList(menu.length - shown.length, unpriced, deps.catalog.file) }
        : {}),
    },
  );
  return picked;
}

/** The lines under the model list: the models not shown, and what "no known price" means. */
function belowList(hidden: number, unpriced: boolean, file: string): string {
  const lines: string[] = [];
  if (hidden > 0) lines.push(`  …and ${hidden} more: type a name to pick one of them`);
  if (unpriced)
    lines.push(
      `  (*) no known price: the bundled packs' daily spend caps refuse such a model until its`,
      `      price is in ${file} (the checks at the end print the line to add).`,
    );
  return lines.join('\n');
}
