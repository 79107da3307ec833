/** Readers of recorded request bodies in the OpenAI and Gemini formats, for assertions. */
import type { RecordedRequest } from './model-server.ts';

type Part = { type?: string; text?: string };

function partsText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = (content as Part[]).filter((p) => typeof p?.text === 'string').map((p) => p.text);
  return texts.length ? texts.join('\n') : undefined;
}

export function userTexts(req: RecordedRequest): string[] {
  if (req.kind !== 'chat') return [];
  const out: (string | undefined)[] =
    req.provider === 'gemini'
      ? (req.body.contents ?? [])
          .filter((c: { role?: string }) => (c.role ?? 'user') === 'user')
          .map((c: { parts?: unknown }) => partsText(c.parts))
      : (req.body.messages ?? [])
          .filter((m: { role?: string }) => m.role === 'user')
          .map((m: { content?: unknown }) => partsText(m.content) ?? '');
  return out.filter((t): t is string => t !== undefined);
}

export function lastUserText(req: RecordedRequest): string {
  return userTexts(req).at(-1) ?? '';
}

export function systemText(req: RecordedRequest): string {
  if (req.kind !== 'chat') return '';
  if (req.provider === 'gemini') {
    const si = req.body.systemInstruction;
    if (si === undefined) return '';
    return partsText(typeof si === 'string' || Array.isArray(si) ? si : si.parts) ?? '';
  }
  return (req.body.messages ?? [])
    .filter((m: { role?: string }) => m.role === 'system' || m.role === 'developer')
    .map((m: { content?: unknown }) => partsText(m.content) ?? '')
    .join('\n');
}
