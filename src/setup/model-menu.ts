import type { ModelCatalog } from '../usage/catalog.ts';

/** One model the key can use, as setup offers it. */
export interface ModelOption {
  model: string;
  /** "$0.40 in / $1.60 out per M tokens", or undefined when the catalog has no price. */
  price: string | undefined;
}

/** Names that are plainly not chat models (embeddings, speech, images, moderation). */
export const NOT_CHAT =
  /embed|tts|whisper|transcribe|dall-e|image|moderation|audio|realtime|rerank/i;

/**
 * The models a key can use, in the order setup offers them (SPEC §1): priced ones first —
 * the provider's default among them at the top, so the bundled packs' spend caps work —
 * then the others alphabetically. A model the catalog prices per hour of audio or per call
 * (speech to text, search) and names that are plainly not chat models are left out.
 */
export function modelMenu(
  provider: string,
  listed: readonly string[],
  catalog: ModelCatalog,
  defaultModel: string,
): ModelOption[] {
  const priced: ModelOption[] = [];
  const other: ModelOption[] = [];
  for (const model of [...new Set(listed)].sort()) {
    const entry = catalog.lookup(provider, model);
    if (entry?.tokens) priced.push({ model, price: priceText(entry.tokens) });
    else if (!entry && !NOT_CHAT.test(model)) other.push({ model, price: undefined });
  }
  const first = priced.findIndex((o) => o.model === defaultModel);
  if (first > 0) priced.unshift(...priced.splice(first, 1));
  return [...priced, ...other];
}

function priceText(tokens: { input: number; output: number }): string {
  const usd = (n: number) => `$${n.toFixed(2)}`;
  return `${usd(tokens.input)} in / ${usd(tokens.output)} out per M tokens`;
}

/** Names of models that see images, among those a local server lists. */
const SEES = /llava|vision|[-_.:]vl\b|vl[-_:]|moondream|minicpm-v|gemma3|pixtral/i;

/**
 * VISION_MODEL to write when the provider's default vision model is not among the models the
 * server lists (a local server): one whose name says it sees images, else the chat model
 * (`guessed` then tells the person to check). Undefined when the default is listed.
 */
export function visionChoice(
  listed: readonly string[],
  chat: string,
  defaultVision: string | undefined,
): { model: string; guessed: boolean } | undefined {
  if (defaultVision === undefined || listed.includes(defaultVision)) return undefined;
  const seeing = [...listed].sort().find((m) => SEES.test(m));
  return seeing ? { model: seeing, guessed: false } : { model: chat, guessed: true };
}
