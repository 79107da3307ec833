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
    defaults: {
      chat: 'gpt-4.1-mini',
      vision: 'gpt-4.1-mini',
      stt: 'gpt-4o-mini-transcribe',
    },
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
        'Groq key: for LLM_PROVIDER=groq, and it turns on voice messages (Whisper speech-to-text, ' +
        'see STT_PROVIDER) whatever the chat provider. GROQ_BASE_URL is its host root, for a proxy.',
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

/** What a transcriber is made with: the provider's key and base URL, and its model. */
export interface TranscriberOptions extends ProviderAccess {
  model: string;
  timeoutMs: number;
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

/** The providers that can transcribe voice (STT_PROVIDER's values besides `off`). */
export const STT_PROVIDERS = PROVIDERS.filter(
  (p: ProviderSpec) => p.defaults.stt !== undefined,
).map((p) => p.name);

/**
 * Who transcribes voice (SPEC §1: STT_PROVIDER, STT_MODEL, STT_BASE_URL, STT_API_KEY): the
 * provider, its model, and the key and server it is called with — the provider's own unless
 * STT_API_KEY or STT_BASE_URL name others, so chat and speech-to-text may be different servers.
 */
export interface SttSettings extends ProviderAccess {
  provider: Provider;
  model: string;
}

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
  /** Undefined: speech-to-text is off. */
  stt: SttSettings | undefined;
  visionModel: string | undefined;
}
