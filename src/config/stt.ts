import {
  type Provider,
  type ProviderKeys,
  type SttSettings,
  specOf,
} from '../providers/registry.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The variables that set speech to text up (SPEC §1), as the schema has validated them. */
export interface SttVariables {
  STT_PROVIDER?: Provider | 'off' | undefined;
  STT_MODEL?: string | undefined;
  STT_BASE_URL?: string | undefined;
  STT_API_KEY?: string | undefined;
}

/** Where OpenAI's own API is (what its SDK calls when no base URL is set). */
export const OPENAI_API_URL = 'https://api.openai.com/v1';

/** OpenAI's own API: OPENAI_BASE_URL unset, or naming its host. */
export function isOpenAiOwn(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined || baseUrl.trim() === '') return true;
  try {
    return new URL(baseUrl).hostname === new URL(OPENAI_API_URL).hostname;
  } catch {
    return false;
  }
}

/**
 * Who transcribes when STT_PROVIDER is not set: Groq when GROQ_API_KEY is set, else OpenAI
 * when OPENAI_API_KEY is set and OPENAI_BASE_URL is OpenAI's own (a compatible chat server
 * seldom transcribes, so it must be chosen explicitly), else nobody.
 */
export function defaultSttProvider(providers: ProviderKeys): Provider | undefined {
  if (providers.groq.apiKey) return 'groq';
  if (providers.openai.apiKey && isOpenAiOwn(providers.openai.baseUrl)) return 'openai';
  return undefined;
}

/**
 * Speech to text as configured: the provider (STT_PROVIDER, or its default), STT_MODEL (or
 * the provider's default model), and the key and server — STT_API_KEY and STT_BASE_URL, else
 * the provider's own. Undefined when it is off.
 */
export function sttSettings(e: SttVariables, providers: ProviderKeys): SttSettings | undefined {
  const provider = e.STT_PROVIDER === undefined ? defaultSttProvider(providers) : e.STT_PROVIDER;
  if (provider === undefined || provider === 'off') return undefined;
  const own = providers[provider];
  const apiKey = e.STT_API_KEY ?? own.apiKey;
  const baseUrl = e.STT_BASE_URL ?? own.baseUrl;
  return {
    provider,
    model: e.STT_MODEL ?? specOf(provider).defaults.stt ?? '',
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
  };
}

const blank = (value: string | undefined) => value === undefined || value.trim() === '';

/**
 * An STT_PROVIDER chosen explicitly that cannot be called: it has no key, neither its own
 * nor STT_API_KEY, and no server that may take none (a base URL). Read from the raw
 * environment, so it is reported with any other problem.
 */
export function missingSttNeeds(env: Env): string[] {
  const provider = env.STT_PROVIDER?.trim();
  if (provider !== 'groq' && provider !== 'openai') return [];
  const { apiKey, baseUrl } = specOf(provider).env;
  const reachable =
    !blank(env.STT_API_KEY) ||
    !blank(env.STT_BASE_URL) ||
    !blank(env[apiKey]) ||
    !blank(env[baseUrl]);
  return reachable
    ? []
    : [
        `- STT_PROVIDER=${provider} needs a key: set ${apiKey} or STT_API_KEY (or STT_BASE_URL for a server that takes none), or set STT_PROVIDER=off`,
      ];
}
