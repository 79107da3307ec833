import type { McpImage } from './types.ts';

/** Groq refuses more than 5 images in a request; the turn's requests resend them all. */
export const MAX_TURN_IMAGES = 5;
/** Base64 characters of all of a turn's tool images: Gemini refuses a request past ~20 MB. */
export const MAX_TURN_IMAGE_CHARS = 8 * 1024 * 1024;
/** Base64 characters of one image: Groq refuses a larger one. */
export const MAX_IMAGE_CHARS = 4 * 1024 * 1024;

/** The image types every provider takes inline. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/**
 * What one turn's tool results may show the model: each image shown goes with every later
 * request of the turn, so their count and size are bounded per turn, not per result.
 * An image past the budget is described instead, as for a model that takes no images.
 */
export function turnImageBudget() {
  let count = 0;
  let chars = 0;
  return {
    /** Whether `image` is shown; it then counts against the budget. */
    take(image: McpImage): boolean {
      const size = image.data.length;
      if (!INLINE_TYPES.has(image.mimeType) || size > MAX_IMAGE_CHARS) return false;
      if (count >= MAX_TURN_IMAGES || chars + size > MAX_TURN_IMAGE_CHARS) return false;
      count++;
      chars += size;
      return true;
    },
  };
}

export type TurnImageBudget = ReturnType<typeof turnImageBudget>;
