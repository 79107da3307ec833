/**
 * The model catalog: what each known `provider:model` accepts and what it costs. Capability
 * decisions (inline images, or a vision model first) read this data, never a vendor's name.
 * A model missing here is taken as text-only with no known price.
 */

/** USD per million tokens. `cachedInput` applies to the cached part of the prompt. */
export interface TokenPrice {
  input: number;
  cachedInput: number;
  output: number;
}

export interface ModelEntry {
  /** The model takes images inline with the text. */
  images: boolean;
  /** Chat and vision models: the list price per million tokens. */
  tokens?: TokenPrice;
  /** Speech-to-text models: the list price per hour of audio. */
  audioPerHour?: number;
}

const chat = (images: boolean, input: number, cachedInput: number, output: number) => ({
  images,
  tokens: { input, cachedInput, output },
});

const MODELS: Readonly<Record<string, ModelEntry>> = {
  'openai:gpt-4.1': chat(true, 2, 0.5, 8),
  'openai:gpt-4.1-mini': chat(true, 0.4, 0.1, 1.6),
  'openai:gpt-4.1-nano': chat(true, 0.1, 0.025, 0.4),
  'openai:gpt-4o': chat(true, 2.5, 1.25, 10),
  'openai:gpt-4o-mini': chat(true, 0.15, 0.075, 0.6),
  'gemini:gemini-2.5-flash': chat(true, 0.3, 0.075, 2.5),
  'gemini:gemini-2.5-flash-lite': chat(true, 0.1, 0.025, 0.4),
  'gemini:gemini-2.5-pro': chat(true, 1.25, 0.31, 10),
  // Groq bills cached prompt tokens at the full input price.
  'groq:llama-3.3-70b-versatile': chat(false, 0.59, 0.59, 0.79),
  'groq:llama-3.1-8b-instant': chat(false, 0.05, 0.05, 0.08),
  'groq:meta-llama/llama-4-scout-17b-16e-instruct': chat(true, 0.11, 0.11, 0.34),
  'groq:meta-llama/llama-4-maverick-17b-128e-instruct': chat(true, 0.2, 0.2, 0.6),
  'groq:whisper-large-v3-turbo': { images: false, audioPerHour: 0.04 },
  'groq:whisper-large-v3': { images: false, audioPerHour: 0.111 },
};

/** The catalog entry of a model, or undefined for a model satchel does not know. */
export function modelEntry(provider: string, model: string): ModelEntry | undefined {
  return MODELS[`${provider}:${model}`];
}

/** Whether the model takes images inline; an unknown model is text-only. */
export function modelAcceptsImages(provider: string, model: string): boolean {
  return modelEntry(provider, model)?.images ?? false;
}

/**
 * The catalog's chat models as `provider:model` references, in catalog order: the entries
 * priced per token (speech-to-text ones are priced per hour). `/model` offers those whose
 * provider is configured.
 */
export function chatModelRefs(): string[] {
  return Object.entries(MODELS).flatMap(([ref, entry]) => (entry.tokens ? [ref] : []));
}
