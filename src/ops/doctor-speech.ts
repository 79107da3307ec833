import type { Config } from '../config/config.ts';
import { OPENAI_API_URL } from '../config/stt.ts';
import { listModels } from '../providers/probe.ts';
import type { SttSettings } from '../providers/registry.ts';
import type { ModelUse } from '../usage/unknown-prices.ts';
import { type Check, fail, pass, warn } from './check.ts';
import { providerFailure } from './doctor-remote.ts';

/** Where each provider's API is when no base URL is set (what the SDKs call). */
const DEFAULT_URLS: Record<string, string> = {
  openai: OPENAI_API_URL,
  groq: 'https://api.groq.com',
};

/** How voice is turned on, for a doctor whose voice messages are off. */
export const STT_HOW =
  'Set GROQ_API_KEY (Groq Whisper), or OPENAI_API_KEY on OpenAI itself, or STT_PROVIDER=openai ' +
  'with STT_BASE_URL for an OpenAI-compatible Whisper server (`npx satchel setup --stt …` writes them).';

/** Speech to text has a server or key of its own (STT_BASE_URL, STT_API_KEY). */
export function ownSttServer(env: Readonly<Record<string, string | undefined>>): boolean {
  return !!env.STT_BASE_URL?.trim() || !!env.STT_API_KEY?.trim();
}

/**
 * The doctor's speech-to-text line: which provider and model transcribe voice, at which
 * address — or that voice messages are off, and how to turn them on (a warning, unless
 * STT_PROVIDER=off says so on purpose). On a server of its own (STT_BASE_URL, STT_API_KEY)
 * the model list there is asked for too (the provider's own is the providers' check); no
 * token is spent.
 */
export async function checkSpeech(
  config: Pick<Config, 'stt' | 'providers' | 'env'>,
  timeoutMs: number,
): Promise<Check> {
  const stt = config.stt;
  if (!stt) {
    if (config.env.STT_PROVIDER?.trim() === 'off')
      return pass('voice messages: off (STT_PROVIDER=off)');
    return warn('voice messages: off (no speech-to-text is set up)', STT_HOW);
  }
  const what = `voice messages: transcribed by ${stt.provider} ${stt.model} at ${sttUrl(stt)}`;
  if (!ownSttServer(config.env)) return pass(what);
  const signal = AbortSignal.timeout(timeoutMs);
  let listed: string[];
  try {
    listed = await listModels(
      { providers: { ...config.providers, [stt.provider]: stt } },
      stt.provider,
      signal,
    );
  } catch (error) {
    const failed = providerFailure(stt.provider, error, signal, timeoutMs);
    return fail(
      `voice messages: ${stt.provider} at ${sttUrl(stt)}: ${failed.title.replace(/^\w+: /, '')}`,
      'Check STT_BASE_URL and STT_API_KEY (the server they name must be running).',
    );
  }
  if (listed.includes(stt.model)) return pass(`${what}; key accepted`);
  return fail(
    `voice messages: ${sttUrl(stt)} does not offer ${stt.model}`,
    `Set STT_MODEL to a model it lists${listed.length > 0 ? ` (it lists ${listed.slice(0, 8).join(', ')})` : ''}.`,
  );
}

/** The models the providers' check asks about: STT's only when it is on the provider's own server. */
export function providerUses(
  uses: readonly ModelUse[],
  env: Readonly<Record<string, string | undefined>>,
): ModelUse[] {
  return ownSttServer(env) ? uses.filter((u) => u.use !== 'stt') : [...uses];
}

function sttUrl(stt: SttSettings): string {
  return stt.baseUrl ?? DEFAULT_URLS[stt.provider] ?? stt.provider;
}
