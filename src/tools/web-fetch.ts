import { z } from 'zod';
import { defineTool } from './tool.ts';
import { type GuardDeps, guardedGet } from './web/guarded-get.ts';
import { type PageReader, sharedPageReader } from './web/page-reader.ts';

/** How web_fetch reaches pages, and how much of one the model gets. */
export interface WebFetchDeps extends GuardDeps {
  /** WEB_FETCH_MAX_CHARS: the most characters of a page given to the model. */
  maxChars: number;
  /** Finds an HTML page's text off the main thread; the process's shared one by default. */
  reader?: PageReader;
}

const schema = z.object({ url: z.string().min(1).describe('An http or https URL.') });

const HTML = new Set(['text/html', 'application/xhtml+xml']);
const TEXT = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'application/json']);
const readable = (type: string) => HTML.has(type) || TEXT.has(type) || type.endsWith('+json');

/** `web_fetch`: a page's readable text (title and main text), or a text file as it is. */
export function createWebFetchTool(deps: WebFetchDeps) {
  return defineTool({
    name: 'web_fetch',
    description:
      'Fetch a public web page (http/https) and read its title and main text; plain text, Markdown and JSON come as they are. Other files (images, PDFs, binaries) are refused.',
    schema,
    effect: 'read',
    untrusted: ({ url }) => `web_fetch ${url.trim()}`,
    fetches: ({ url }) => url.trim(),
    async run({ url }, signal) {
      const page = await guardedGet(url.trim(), deps, readable, signal);
      const source = decode(page.body, page.charset);
      const reader = deps.reader ?? sharedPageReader();
      const { title, text } = HTML.has(page.type)
        ? await reader.read(source, signal)
        : { title: '', text: source };
      const head = [title && `Title: ${title}`, `URL: ${page.url}`].filter(Boolean).join('\n');
      return cut(`${head}\n\n${text}`, deps.maxChars);
    },
  });
}

/** The body as text in its stated charset (or a `<meta charset>`), else UTF-8. */
function decode(body: Buffer, charset: string | undefined): string {
  const stated =
    charset ??
    /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(stated ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n\n[Cut: the page has ${text.length} characters; the first ${maxChars} are shown.]`;
}
