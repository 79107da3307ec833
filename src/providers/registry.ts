/**
 * The providers satchel can call, as plain data: their names, the variables they read and
 * their default models. The configuration derives LLM_PROVIDER's values and the provider
 * variables from this list; the key hints, model references, the doctor and the secrets to
 * redact read it too. What each provider does (its chat model, transcriber and probe) is in
 * `clients.ts`, keyed by the same names. This file imports nothing, so the configuration can
 * read it without loading an SDK, and an adapter can read it without a cycle.
 */

export interface ProviderSpec {
  /** How LLM_PROVIDER, LLM_FALLBACK and `provider:model` references name it. */
  readonly name: string;
  /** The variables it reads, and what `.env.example` says above them. */
  readonly env: {
    /** Its API key; also the variable to check when the provider refuses the key. */
    readonly apiKey: string;
    /** Another server (a compatible one, or a proxy); validated as an http(s) URL. */
    readonly baseUrl: string;
    readonly help: string;
  };
  /** The models used when the configuration names none. */
  readonly defaults: {
    readonly chat: string;
    /** Describes photos for a chat model that cannot see; none: no vision model. */
    readonly vision?: string;
    /** Speech to text; the provider that has it also needs a transcriber in clients.ts. */
    readonly stt?: string;
  };
}

/** In the order LLM_PROVIDER's error message lists them. */
export const PROVIDERS = [
  {
    name: 'openai',
    env: {
      apiKey: 'OPENAI_API_KEY',
      baseUrl: 'OPENAI_BASE_URL',
      help: 'OpenAI key, and base URL (including /v1) for a compatible server.',
    },
    defaults: { chat: 'gpt-4.1-mini', vision: 'gpt-4.1-mini' },
  },
  {
    name: 'gemini',
    env: {
      apiKey: 'GEMINI_API_KEY',
      baseUrl: 'GEMINI_BASE_URL',
      help: 'Gemini key, and its host root for a proxy.',
    },
    defaults: { chat: 'gemini-2.5-flash', vision: 'gemini-2.5-flash' },
  },
  {
    name: 'groq',
    env: {
      apiKey: 'GROQ_API_KEY',
      baseUrl: 'GROQ_BASE_URL',
      help:
        'Groq key: needed for voice messages and audio (Whisper speech-to-text) whatever the ' +
        'chat provider, and for LLM_PROVIDER=groq. GROQ_BASE_URL is its host root, for a proxy.',
    },
    defaults: {
      chat: 'llama-3.3-70b-versatile',
      vision: 'meta-llama/llama-4-scout-17b-16e-instruct',
      stt: 'whisper-large-v3-turbo',
    },
  },
] as const satisfies readonly ProviderSpec[];

export type Provider = (typeof PROVIDERS)[number]['name'];

/** Every provider's name, in registry order. */
export const PROVIDER_NAMES = PROVIDERS.map((p) => p.name) as [Provider, ...Provider[]];

/** The key and base URL configured for one provider. */
export interface ProviderAccess {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}

export type ProviderKeys = Readonly<Record<Provider, ProviderAccess>>;

/** Whether `name` is a provider satchel knows. */
export function isProvider(name: string): name is Provider {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** The spec of a provider; undefined for a name satchel does not know. */
export function providerSpec(name: string): ProviderSpec | undefined {
  return PROVIDERS.find((p) => p.name === name);
}

/** The spec of a known provider. */
export function specOf(provider: Provider): ProviderSpec {
  return PROVIDERS.find((p) => p.name === provider)!;
}

/** The provider that transcribes voice: the first with a speech-to-text default. */
export const STT_PROVIDER: Provider | undefined = PROVIDERS.find(
  (p: ProviderSpec) => p.defaults.stt !== undefined,
)?.name;

/** Every configured API key: secrets that logs and stored text must never show. */
export function providerSecrets(keys: ProviderKeys): (string | undefined)[] {
  return PROVIDER_NAMES.map((name) => keys[name].apiKey);
}

/** The provider can be called: it has a key, or a base URL (a compatible server or a proxy). */
export function providerConfigured(
  settings: { providers: ProviderKeys },
  provider: Provider,
): boolean {
  const { apiKey, baseUrl } = settings.providers[provider];
  return apiKey !== undefined || baseUrl !== undefined;
}

/** What the provider factories read of the configuration (CoreConfig has all of it). */
export interface ProviderSettings {
  llm: {
    provider: Provider;
    model?: string | undefined;
    fallback?: { provider: Provider; model: string } | undefined;
    timeoutMs: number;
  };
  providers: ProviderKeys;
  sttModel: string;
  visionModel: string | undefined;
}
