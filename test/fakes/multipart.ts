/**
 * Small multipart/form-data reader for the fake servers.
 *
 * Node's `Request.formData()` rejects grammY's uploads: grammY writes part headers without spaces
 * and leaves the filename unquoted (`content-disposition:form-data;name="ab12";filename=photo.jpg`),
 * so this parses the raw body leniently instead.
 */

export interface MultipartFile {
  filename: string;
  contentType?: string;
  bytes: Buffer;
}

export type MultipartValue = string | MultipartFile;

/** Form fields that stay strings even when they look like numbers or JSON. */
const TEXT_FIELDS = new Set(['text', 'caption', 'title', 'name', 'description', 'performer']);

/** The `boundary` parameter of a `multipart/form-data` content type, if any. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

export function isFile(value: unknown): value is MultipartFile {
  return (
    typeof value === 'object' && value !== null && Buffer.isBuffer((value as MultipartFile).bytes)
  );
}

/** Parses a multipart body into fields: text parts become strings, file parts `{ filename, bytes }`. */
export function parseMultipart(body: Buffer, boundary: string): Record<string, MultipartValue> {
  const fields: Record<string, MultipartValue> = {};
  const delimiter = `--${boundary}`;
  let pos = body.indexOf(delimiter);
  while (pos !== -1) {
    let start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break; // closing delimiter
    if (body.subarray(start, start + 2).toString() === '\r\n') start += 2;
    const next = body.indexOf(`\r\n${delimiter}`, start);
    if (next === -1) break; // truncated body
    addPart(fields, body.subarray(start, next));
    pos = next + 2;
  }
  return fields;
}

function addPart(fields: Record<string, MultipartValue>, part: Buffer): void {
  const split = part.indexOf('\r\n\r\n');
  if (split === -1) return;
  const headers = new Map<string, string>();
  for (const line of part.subarray(0, split).toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const name = param(disposition, 'name');
  if (name === undefined) return;
  const bytes = Buffer.from(part.subarray(split + 4));
  const filename = param(disposition, 'filename');
  if (filename === undefined) {
    fields[name] = bytes.toString('utf8');
    return;
  }
  const contentType = headers.get('content-type');
  fields[name] = contentType ? { filename, contentType, bytes } : { filename, bytes };
}

/** Reads `key="value"` or `key=value` from a Content-Disposition header. */
function param(header: string, key: string): string | undefined {
  const quoted = new RegExp(`(?:^|;)\\s*${key}="([^"]*)"`, 'i').exec(header);
  if (quoted) return quoted[1];
  // Unquoted: grammY puts `filename=` last and never quotes it, so take it up to the end.
  const bare = new RegExp(`(?:^|;)\\s*${key}=(${key === 'filename' ? '.*' : '[^;]*'})`, 'i').exec(
    header,
  );
  return bare?.[1]?.trim();
}

/**
 * Multipart fields -> params: values typed, `attach://<id>` replaced by `{ filename, size,
 * bytes }` (the upload's content, for tests that check what was sent).
 */
export function multipartParams(body: Buffer, boundary: string): Record<string, unknown> {
  const fields = parseMultipart(body, boundary);
  const attached = new Set<string>();
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string' && value.startsWith('attach://')) {
      const id = value.slice('attach://'.length);
      const file = fields[id];
      if (!isFile(file)) return value;
      attached.add(id);
      return { filename: file.filename, size: file.bytes.length, bytes: file.bytes };
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    }
    return value;
  };
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields))
    if (!isFile(v)) params[k] = resolve(coerceField(k, v));
  for (const [k, v] of Object.entries(fields)) {
    // A file part sent directly under its field name (not via attach://).
    if (isFile(v) && !attached.has(k))
      params[k] = { filename: v.filename, size: v.bytes.length, bytes: v.bytes };
  }
  return params;
}

/** Types a form field the way the Bot API reads it: numbers, booleans and JSON objects. */
export function coerceField(key: string, value: string): unknown {
  if (TEXT_FIELDS.has(key)) return value;
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
