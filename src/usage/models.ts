/**
 * The bundled model catalog: satchel's defaults (providers/registry.ts) and the other current
 * chat, vision and speech models of the three providers that an owner is likely to set
 * (SPEC §14), with what each accepts and costs, so the bundled packs' USD caps work on any of
 * them. Anything else is the owner's to price in SATCHEL_MODELS
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
  /** Text-to-speech models: the price per million characters spoken. */
  ttsPerMillionChars?: number | undefined;
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

  // The models an owner is likely to set instead (SPEC §14).
  // openai.com/api/pricing, 2025-11: $2.50 in, $1.25 cached, $10.00 out.
  'openai:gpt-4o': chat(true, 128_000, [2.5, 1.25, 10]),
  // openai.com/api/pricing, 2025-11: $0.15 in, $0.075 cached, $0.60 out.
  'openai:gpt-4o-mini': chat(true, 128_000, [0.15, 0.075, 0.6]),
  // openai.com/api/pricing, 2025-11: $2.00 in, $0.50 cached, $8.00 out.
  'openai:gpt-4.1': chat(true, 1_047_576, [2, 0.5, 8]),
  // openai.com/api/pricing, 2025-11: $0.10 in, $0.025 cached, $0.40 out.
  'openai:gpt-4.1-nano': chat(true, 1_047_576, [0.1, 0.025, 0.4]),
  // openai.com/api/pricing, 2025-11: $1.10 in, $0.275 cached, $4.40 out (reasoning tokens
  // are billed as output).
  'openai:o4-mini': chat(true, 200_000, [1.1, 0.275, 4.4]),
  // openai.com/api/pricing, 2025-11: an estimated $0.015 per minute of speech; at about
  // 1,000 characters a minute, $15 per million characters (text-to-speech, not a chat model).
  'openai:gpt-4o-mini-tts': { images: false, ttsPerMillionChars: 15 },
  // openai.com/api/pricing, 2025-11: $0.003 per minute of audio, $0.18 per hour.
  'openai:gpt-4o-mini-transcribe': { images: false, audioPerHour: 0.18 },
  // openai.com/api/pricing, 2025-11: $0.006 per minute of audio, $0.36 per hour (each).
  'openai:gpt-4o-transcribe': { images: false, audioPerHour: 0.36 },
  'openai:whisper-1': { images: false, audioPerHour: 0.36 },
  // ai.google.dev/gemini-api/docs/pricing, 2025-11 (paid tier, text, prompts ≤ 200k tokens):
  // $1.25 in, $0.31 cached, $10.00 out (thinking tokens included).
  'gemini:gemini-2.5-pro': chat(true, 1_048_576, [1.25, 0.31, 10]),
  // ai.google.dev/gemini-api/docs/pricing, 2025-11 (paid tier, text): $0.10 in, $0.025
  // cached, $0.40 out.
  'gemini:gemini-2.5-flash-lite': chat(true, 1_048_576, [0.1, 0.025, 0.4]),
  // ai.google.dev/gemini-api/docs/pricing, 2025-11 (paid tier, text): $0.10 in, $0.025
  // cached, $0.40 out.
  'gemini:gemini-2.0-flash': chat(true, 1_048_576, [0.1, 0.025, 0.4]),
  // groq.com/pricing, 2025-11: $0.05 in, $0.08 out, cached half.
  'groq:llama-3.1-8b-instant': chat(false, 131_072, [0.05, 0.025, 0.08]),
  // groq.com/pricing, 2025-11: $0.20 in, $0.60 out, cached half.
  'groq:meta-llama/llama-4-maverick-17b-128e-instruct': chat(true, 131_072, [0.2, 0.1, 0.6]),
  // groq.com/pricing, 2025-11: $0.111 per hour of audio.
  'groq:whisper-large-v3': { images: false, audioPerHour: 0.111 },

  // web_search, one call each (SPEC §13, §14; booked as `<provider>:search`).
  // brave.com/search/api, 2026-11: the Search plan, $5 per 1,000 requests.
  'brave:search': { images: false, perCall: 0.005 },
  // docs.tavily.com/documentation/api-credits, 2026-11: a basic search is 1 credit, $0.008
  // pay-as-you-go.
  'tavily:search': { images: false, perCall: 0.008 },
  // SearXNG is the owner's own instance: nothing to pay per search.
  'searxng:search': { images: false, perCall: 0 },
};
