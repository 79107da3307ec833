/** Readers of recorded request bodies in the OpenAI and Gemini formats, for assertions. */
import type { RecordedRequest } from './model-server.ts';

type Part = { type?: string; text?: string };

function partsText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = (content as Part[]).filter((p) => typeof p?.text === 'string').map((p) => p.text);
  return texts.length ? texts.join('\n') : undefined;
}

/** The time line satchel puts first in each turn's user message (src/agent/time-stamp.ts). */
export const SENT_LINE = /^\[Sent: \d{4}-\d{2}-\d{2} [A-Za-z]+ \d{2}:\d{2} [^\]]+\]\n/;

/**
 * The clock line satchel sends after the conversation, as a system message (OpenAI, Groq) or,
 * on Gemini, which has no system role there, as the last user text part (agent/time-stamp.ts).
 */
export const NOW_LINE = /^\[Now: \d{4}-\d{2}-\d{2} [A-Za-z]+ \d{2}:\d{2} [^\]]+\]$/;

type Message = { role?: string; content?: unknown };
const isClock = (m: Message) => m.role === 'system' && NOW_LINE.test(partsText(m.content) ?? '');

/** A chat request's clock line (`[Now: 2026-11-24 Tuesday 21:05 UTC]`), if it has one. */
export function clockLine(req: RecordedRequest): string | undefined {
  if (req.kind !== 'chat') return undefined;
  if (req.provider === 'gemini') {
    const parts = ((req.body.contents ?? []) as { parts?: Part[] }[]).flatMap((c) => c.parts ?? []);
    return parts.map((p) => p.text ?? '').findLast((text) => NOW_LINE.test(text));
  }
  const last = (req.body.messages ?? []).at(-1) as Message | undefined;
  return last && isClock(last) ? partsText(last.content) : undefined;
}

/** An OpenAI-format request's messages without the clock line after the conversation. */
export function conversation(req: RecordedRequest): Message[] {
  const messages = (req.body.messages ?? []) as Message[];
  const last = messages.at(-1);
  return last && isClock(last) ? messages.slice(0, -1) : messages;
}

/** The user messages' texts, each without its `[Sent: …]` line (`rawUserTexts` keeps it). */
export function userTexts(req: RecordedRequest): string[] {
  return rawUserTexts(req).map((t) => t.replace(SENT_LINE, ''));
}

/** The user messages' texts as the model got them (on Gemini, without the clock line). */
export function rawUserTexts(req: RecordedRequest): string[] {
  if (req.kind !== 'chat') return [];
  const out: (string | undefined)[] =
    req.provider === 'gemini'
      ? (req.body.contents ?? [])
          .filter((c: { role?: string }) => (c.role ?? 'user') === 'user')
          .map((c: { parts?: Part[] }) =>
            partsText((c.parts ?? []).filter((p) => !NOW_LINE.test(p.text ?? ''))),
          )
      : (req.body.messages ?? [])
          .filter((m: { role?: string }) => m.role === 'user')
          .map((m: { content?: unknown }) => partsText(m.content) ?? '');
  return out.filter((t): t is string => t !== undefined);
}

/** An image a chat request carried inline: base64 data and its type. */
export interface RecordedImage {
  mimeType: string;
  data: string;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * The images of a chat request's user messages, in order: OpenAI/Groq `image_url` parts with
 * a data URL, Gemini `inlineData` parts. An image by plain URL is reported with an empty type.
 */
export function imagesOf(req: RecordedRequest): RecordedImage[] {
  if (req.kind !== 'chat') return [];
  if (req.provider === 'gemini') {
    return (req.body.contents ?? [])
      .filter((c: { role?: string }) => (c.role ?? 'user') === 'user')
      .flatMap((c: { parts?: { inlineData?: RecordedImage }[] }) => c.parts ?? [])
      .filter((p: { inlineData?: RecordedImage }) => p.inlineData)
      .map((p: { inlineData: RecordedImage }) => ({
        mimeType: p.inlineData.mimeType,
        data: p.inlineData.data,
      }));
  }
  return (req.body.messages ?? [])
    .filter((m: { role?: string; content?: unknown }) => m.role === 'user')
    .flatMap((m: { content?: unknown }) => (Array.isArray(m.content) ? m.content : []))
    .filter((p: { type?: string }) => p?.type === 'image_url')
    .map((p: { image_url?: { url?: string } }) => {
      const url = p.image_url?.url ?? '';
      const match = DATA_URL.exec(url);
      return match
        ? { mimeType: match[1] ?? '', data: match[2] ?? '' }
        : { mimeType: '', data: url };
    });
}

export function lastUserText(req: RecordedRequest): string {
  return userTexts(req).at(-1) ?? '';
}

/** The system prompt: the system messages but the clock line after the conversation. */
export function systemText(req: RecordedRequest): string {
  if (req.kind !== 'chat') return '';
  if (req.provider === 'gemini') {
    const si = req.body.systemInstruction;
    if (si === undefined) return '';
    return partsText(typeof si === 'string' || Array.isArray(si) ? si : si.parts) ?? '';
  }
  return conversation(req)
    .filter((m: { role?: string }) => m.role === 'system' || m.role === 'developer')
    .map((m: { content?: unknown }) => partsText(m.content) ?? '')
    .join('\n');
}

/** The tool results (role `tool`) a chat request in the OpenAI format carried, in order. */
export function toolResults(req: RecordedRequest | undefined): string[] {
  return ((req?.body.messages ?? []) as { role?: string; content?: unknown }[])
    .filter((m) => m.role === 'tool')
    .map((m) => partsText(m.content) ?? '');
}

/**
 * The content of an untrusted envelope (SPEC §17), behind `Error: ` when the result was an
 * error, or the text as it is when it has none.
 */
export function unwrapped(text: string): string {
  const m = /^(Error: )?<<untrusted source="[^"\n]*">>\n([\s\S]*)\n<<end untrusted>>$/.exec(text);
  return m ? `${m[1] ?? ''}${m[2]}` : text;
}
