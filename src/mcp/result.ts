import { ToolError } from '../core/errors.ts';
import type { McpImage, McpResult, McpServerConfig } from './types.ts';

/**
 * A `tools/call` result as the model gets it: the text parts and text resources joined,
 * images kept, every other part (audio, blob resources, resource links, types this code
 * does not know) said in one short line, so nothing the server sent is dropped without a
 * word. Fails with a ToolError
 * when the text is longer than the server's `maxOutputChars`.
 */
export function toMcpResult(raw: unknown, config: McpServerConfig, tool: string): McpResult {
  const result = (raw ?? {}) as {
    content?: unknown;
    isError?: unknown;
    structuredContent?: unknown;
  };
  const parts = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const texts: string[] = [];
  const images: McpImage[] = [];
  for (const part of parts) {
    const p = (part ?? {}) as Record<string, unknown>;
    if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
    else if (p.type === 'image' && typeof p.data === 'string' && typeof p.mimeType === 'string')
      images.push({ mimeType: p.mimeType, data: p.data });
    else texts.push(summarise(p));
  }
  // A server may answer only with structured content; the model still gets it.
  if (parts.length === 0 && result.structuredContent !== undefined)
    texts.push(JSON.stringify(result.structuredContent));
  const text = texts.join('\n');
  if (text.length > config.maxOutputChars)
    throw new ToolError(
      `The MCP tool ${config.name}/${tool} returned ${text.length} characters, more than its limit of ${config.maxOutputChars} (max_output_chars).`,
    );
  return { text, images, isError: result.isError === true };
}

/**
 * One line for a part that is not text or an image: its type, what it is and its size; an
 * embedded text resource is that line followed by its text.
 */
function summarise(part: Record<string, unknown>): string {
  const type = typeof part.type === 'string' ? part.type : 'unknown';
  if (type === 'audio')
    return `[audio: ${mime(part.mimeType)}, ${base64Bytes(part.data)} bytes, not shown]`;
  if (type === 'resource_link')
    return `[resource link: ${str(part.uri)}${part.mimeType ? `, ${mime(part.mimeType)}` : ''}]`;
  if (type === 'resource') {
    const r = (part.resource ?? {}) as Record<string, unknown>;
    // A text resource is read like text (and counts against max_output_chars); a blob is not.
    if (typeof r.text === 'string')
      return `[resource: ${str(r.uri)}, ${mime(r.mimeType)}]\n${r.text}`;
    return `[resource: ${str(r.uri)}, ${mime(r.mimeType)}, ${base64Bytes(r.blob)} bytes, not shown]`;
  }
  return `[${type} content, ${JSON.stringify(part).length} characters, not shown]`;
}

const str = (value: unknown) => (typeof value === 'string' ? value : '?');
const mime = (value: unknown) => (typeof value === 'string' ? value : 'unknown type');

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
