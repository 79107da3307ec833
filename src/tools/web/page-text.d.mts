/** See page-text.mjs. */
export const MAX_PARSE_DEPTH: number;
export const MAX_ARTICLE_DEPTH: number;
export function readableText(html: string): { title: string; text: string };
