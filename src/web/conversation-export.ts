import type { ExportedLine } from '../core/edge-conversations.ts';

/** The formats a conversation is exported in (SPEC §16). */
export type ExportFormat = 'md' | 'json';

export interface Exported {
  /** The file's name, from its title (what the download is saved as). */
  name: string;
  type: string;
  body: string;
}

const WHO = { user: 'You', assistant: 'satchel' } as const;
const iso = (at: number) => new Date(at).toISOString();

/**
 * One conversation as a file: Markdown (its title as the heading, then each message under
 * who wrote it and when) or JSON (`{id, title, exported_at, messages: [{role, text, at}]}`,
 * times in ISO 8601). The texts are as stored: the answers' Markdown as the model wrote it.
 */
export function exportConversation(
  conversation: { id: string; title: string },
  lines: readonly ExportedLine[],
  format: ExportFormat,
  now: number,
): Exported {
  const base = fileName(conversation.title);
  if (format === 'json') {
    const messages = lines.map((l) => ({ role: l.role, text: l.text, at: iso(l.at) }));
    const body = JSON.stringify(
      { id: conversation.id, title: conversation.title, exported_at: iso(now), messages },
      null,
      2,
    );
    return { name: `${base}.json`, type: 'application/json; charset=utf-8', body: `${body}\n` };
  }
  const parts = [`# ${conversation.title}`, `Exported ${iso(now)}`];
  for (const l of lines) parts.push(`### ${WHO[l.role]} · ${iso(l.at)}`, l.text);
  return {
    name: `${base}.md`,
    type: 'text/markdown; charset=utf-8',
    body: `${parts.join('\n\n')}\n`,
  };
}

/** A file name from a title: letters, digits and dashes, never empty. */
function fileName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'conversation';
}
