/**
 * List prices in USD. Chat models are priced per million tokens, speech-to-text per hour of
 * audio. A model missing here has no known price: its calls are recorded with a null cost
 * and flagged, never as $0.
 */
export interface TokenPrice {
  input: number;
  cachedInput: number;
  output: number;
}

const CHAT_PRICES: Record<string, TokenPrice> = {
  'openai:gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'openai:gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'openai:gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'openai:gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'openai:gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gemini:gemini-2.5-flash': { input: 0.3, cachedInput: 0.075, output: 2.5 },
  'gemini:gemini-2.5-flash-lite': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gemini:gemini-2.5-pro': { input: 1.25, cachedInput: 0.31, output: 10 },
  'groq:llama-3.3-70b-versatile': { input: 0.59, cachedInput: 0.59, output: 0.79 },
  'groq:llama-3.1-8b-instant': { input: 0.05, cachedInput: 0.05, output: 0.08 },
};

const AUDIO_PRICES_PER_HOUR: Record<string, number> = {
  'groq:whisper-large-v3-turbo': 0.04,
  'groq:whisper-large-v3': 0.111,
};

/** Cost of a chat or vision call, or null when the model's price is unknown. */
export function tokenCost(
  provider: string,
  model: string,
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
): number | null {
  const price = CHAT_PRICES[`${provider}:${model}`];
  if (!price) return null;
  const freshInput = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  return (
    (freshInput * price.input +
      usage.cachedInputTokens * price.cachedInput +
      usage.outputTokens * price.output) /
    1_000_000
  );
}

/** Cost of a transcription, or null when the model's price is unknown. */
export function audioCost(provider: string, model: string, seconds: number): number | null {
  const perHour = AUDIO_PRICES_PER_HOUR[`${provider}:${model}`];
  return perHour === undefined ? null : (perHour * seconds) / 3600;
}
