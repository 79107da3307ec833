import type { ImageInput } from '../core/types.ts';

/** Images tools returned, by tool (see ToolRunner.takeImages). */
export type ToolImages = { tool: string; images: ImageInput[] }[];

/**
 * Images tools returned reach the model as a user message after the tools' results: a
 * tool result is text on every provider, while a user message takes images on all of them.
 * The message is stored as this note, under its own key; the images go with it in the
 * rest of this turn only, as a user's photos do, so history never replays the bytes.
 */
export function toolImagesMessage(
  turnId: string,
  step: number,
  shown: ToolImages,
): { content: string; sourceKey: string; images: ImageInput[] } {
  const list = shown
    .map(({ tool, images }) => `${tool}: ${images.length} image${images.length === 1 ? '' : 's'}`)
    .join(', ');
  return {
    content: `[The images the tools returned (${list}), shown to you in this turn only.]`,
    sourceKey: `${turnId}:tool-images:${step}`,
    images: shown.flatMap((s) => s.images),
  };
}
