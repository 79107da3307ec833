import type { Renderer, TextPart } from '../core/ports.ts';
import { PLAIN, renderMarkdown } from '../outbound/markdown.ts';

/** Characters that show nothing: a message of only these is not printed. */
const INVISIBLE = /[\s\u00a0\u200b-\u200d\u2060\ufeff]/g;

const part = (text: string): TextPart[] =>
  text.replace(INVISIBLE, '') === '' ? [] : [{ text, plain: text }];

/** A terminal has no length limit and no markup: one plain part per message. */
export const terminalRenderer: Renderer = {
  text(message) {
    const text =
      message.format === 'markdown' ? renderMarkdown(message.text, PLAIN) : message.text.trim();
    const parts = part(text);
    const last = parts.at(-1);
    if (last && message.keyboard) last.keyboard = message.keyboard;
    return parts;
  },
  caption(markdown) {
    const [caption] = part(renderMarkdown(markdown, PLAIN));
    return { ...(caption ? { caption } : {}), rest: [] };
  },
};
