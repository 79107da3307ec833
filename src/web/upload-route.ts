import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { FileTooLargeError } from '../core/errors.ts';
import type { FileRef } from '../core/types.ts';
import type { Attached } from './input.ts';
import { type PendingUploads, TOO_MUCH_PENDING } from './pending-uploads.ts';
import type { UploadStore } from './uploads.ts';

/** Telegram's limit on a caption: the text sent with a file. */
export const MAX_CAPTION_CHARS = 1024;

/** Each picture type by the extension its upload is kept under (media.ts reads it back). */
const PICTURE_EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
};

/**
 * Recordings speech-to-text takes, by the extension they are sent under: Whisper (Groq)
 * picks the format by the file name and takes flac, mp3, mp4, mpeg, mpga, m4a, ogg, opus,
 * wav and webm. Browsers record WebM/Opus (Chromium, Firefox) or MP4/AAC (Safari); naming
 * the recording by its type is all the conversion they need.
 */
const AUDIO_EXTENSIONS: Record<string, string> = {
  'audio/webm': '.webm',
  'video/webm': '.webm',
  'audio/ogg': '.ogg',
  'audio/opus': '.opus',
  'audio/mp4': '.m4a',
  'audio/x-m4a': '.m4a',
  'audio/mpeg': '.mp3',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/wave': '.wav',
  'audio/flac': '.flac',
  'audio/x-flac': '.flac',
};

const NO_RECORDING_TYPE =
  'I cannot transcribe a recording of that type. Record WebM, Ogg, MP4, MP3, WAV or FLAC audio.';

type Answer = { status: number; body: unknown };
const refuse = (status: number, error: string): Answer => ({ status, body: { error } });

/**
 * `POST /chat/upload?kind=photo|document|voice&name=…[&caption=…][&album=…][&duration=…]`
 * with the file as the body and its type as `content-type`: one photo, document or voice
 * recording, as Telegram delivers one. Its size is checked while it is read (a declared
 * length first): past MAX_UPLOAD_BYTES it is refused with Telegram's words and nothing is
 * kept; when what waits for an answer would pass MAX_PENDING_BYTES with it, it is refused
 * (429) and nothing is kept. Otherwise the file is kept in `conversation`'s uploads
 * (uploads.ts) and enters as the event Telegram's edge makes of the same message, so the
 * media pipeline (SPEC §2 step 5) takes it from there. Photos sent together name one
 * `album`, which the batcher gathers into one turn.
 */
export async function receiveUpload(
  request: IncomingMessage,
  query: URLSearchParams,
  deps: {
    store: UploadStore;
    pending: Pick<PendingUploads, 'room'>;
    conversation: string;
    attach(payload: Attached): void;
  },
): Promise<Answer> {
  const kind = query.get('kind');
  const name = query.get('name')?.trim() || 'file';
  const caption = query.get('caption') ?? '';
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (kind !== 'photo' && kind !== 'document' && kind !== 'voice')
    return refuse(400, 'Say what is sent: a photo, a document or a voice recording.');
  if (caption.length > MAX_CAPTION_CHARS)
    return refuse(413, `A caption holds at most ${MAX_CAPTION_CHARS} characters.`);
  const ext =
    kind === 'photo'
      ? PICTURE_EXTENSIONS[type]
      : kind === 'voice'
        ? AUDIO_EXTENSIONS[type]
        : (PICTURE_EXTENSIONS[type] ?? documentExtension(name));
  if (ext === undefined)
    return kind === 'photo'
      ? refuse(415, 'A photo must be a JPEG, PNG or WebP picture; send others as files.')
      : refuse(415, NO_RECORDING_TYPE);

  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared <= deps.store.maxBytes && !deps.pending.room(declared))
    return refuse(429, TOO_MUCH_PENDING);
  let data: Buffer;
  try {
    data = await readAtMost(request, deps.store.maxBytes);
  } catch (error) {
    if (error instanceof FileTooLargeError) return refuse(413, error.userMessage);
    throw error;
  }
  if (data.length === 0) return refuse(400, 'That file is empty.');
  // Checked again once read: another upload may have been taken meanwhile.
  if (!deps.pending.room(data.length)) return refuse(429, TOO_MUCH_PENDING);

  const file: FileRef = {
    fileId: deps.store.keep(deps.conversation, data, ext),
    size: data.length,
  };
  deps.attach(payloadOf(kind, { file, name, caption, type, ext, query }));
  return { status: 202, body: { ok: true } };
}

function payloadOf(
  kind: 'photo' | 'document' | 'voice',
  sent: {
    file: FileRef;
    name: string;
    caption: string;
    type: string;
    ext: string;
    query: URLSearchParams;
  },
): Attached {
  const { file, caption } = sent;
  if (kind === 'voice') {
    const duration = Number(sent.query.get('duration'));
    return {
      kind,
      file,
      durationSec: Number.isFinite(duration) && duration > 0 ? Math.round(duration) : 0,
      mimeType: sent.type,
      fileName: `voice${sent.ext}`,
      caption,
    };
  }
  if (kind === 'document') {
    const mimeType = sent.type || 'application/octet-stream';
    return { kind, file, name: sent.name, mimeType, caption };
  }
  const album = sent.query.get('album');
  if (album && /^[\w-]{1,64}$/.test(album))
    return { kind: 'album', groupId: `web:${album}`, photos: [{ file, updateId: 0 }], caption };
  return { kind, file, caption };
}

/**
 * A document keeps its own extension when it is a plain one; else it is kept as `.bin`. A
 * picture's extension is for pictures only (uploads.ts keeps those as the one copy): a
 * document of another type named `x.png` is kept as `.bin`.
 */
function documentExtension(name: string): string {
  const ext = path.extname(name).toLowerCase();
  const picture = Object.values(PICTURE_EXTENSIONS).includes(ext) || ext === '.jpeg';
  return /^\.[a-z0-9]{1,8}$/.test(ext) && !picture ? ext : '.bin';
}

/**
 * The request's body, refused with FileTooLargeError as soon as it is known to pass `max`
 * bytes: by its declared length before a byte is read, else once what arrived passes it.
 */
async function readAtMost(request: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > max) throw new FileTooLargeError(declared, max);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new FileTooLargeError(size, max);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
