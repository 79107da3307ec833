/**
 * The bundled model catalog: the models satchel's defaults use (providers/registry.ts), with
 * what each accepts and costs. Anything else is the owner's to price in SATCHEL_MODELS
 * (catalog-file.ts); catalog.ts merges the two.
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
  tokens?: TokenPrice | undefined;
  /** Speech-to-text models: the list price per hour of audio. */
  audioPerHour?: number | undefined;
  /** Search: the price of one call. */
  perCall?: number | undefined;
  /** The context window, in tokens, when known. */
  context?: number | undefined;
}

const chat = (
  images: boolean,
  context: number,
  [input, cachedInput, output]: [number, number, number],
): ModelEntry => ({ images, context, tokens: { input, cachedInput, output } });

export const BUNDLED_MODELS: Readonly<Record<string, ModelEntry>> = {
  // openai.com/api/pricing, 2025-11: $0.40 in, $0.10 cached, $1.60 out.
  'openai:gpt-4.1-mini': chat(true, 1_047_576, [0.4, 0.1, 1.6]),
  // ai.google.dev/gemini-api/docs/pricing, 2025-11 (paid tier, text): $0.30 in, $0.03
  // cached (implicit caching), $2.50 out (thinking tokens included).
  'gemini:gemini-2.5-flash': chat(true, 1_048_576, [0.3, 0.03, 2.5]),
  // groq.com/pricing, 2025-11: $0.59 in, $0.79 out; a cached prompt token costs half
  // (console.groq.com/docs/prompt-caching, on the models that cache).
  'groq:llama-3.3-70b-versatile': chat(false, 131_072, [0.59, 0.295, 0.79]),
  // groq.com/pricing, 2025-11: $0.11 in, $0.34 out, cached half (Groq's vision default).
  'groq:meta-llama/llama-4-scout-17b-16e-instruct': chat(true, 131_072, [0.11, 0.055, 0.34]),
  // groq.com/pricing, 2025-11: $0.04 per hour of audio (the default STT_MODEL).
  'groq:whisper-large-v3-turbo': { images: false, audioPerHour: 0.04 },
};
