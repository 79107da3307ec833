import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Change } from '../core/changes.ts';
import type { Clock } from '../core/clock.ts';
import {
  FileTooLargeError,
  isAbort,
  MediaError,
  ProviderError,
  SatchelError,
} from '../core/errors.ts';
import type {
  ChatModel,
  DownloadedFile,
  FileSource,
  Logger,
  Transcriber,
  UserInput,
} from '../core/ports.ts';
import { envelope, neutralise } from '../core/trust.ts';
import type { FileRef, ImageInput, InboundEvent } from '../core/types.ts';
import { voiceText } from '../core/voice-label.ts';
import { describeRequest } from '../providers/vision.ts';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';
import { bookedCall, type CallUse } from '../usage/booked-call.ts';
import type { Ledger, UsageScope } from '../usage/ledger.ts';
import type { PackCaps, QuotaGate } from '../usage/quota.ts';
import {
  audioKeptAsFile,
  INLINE_TEXT_LIMIT,
  inlineText,
  saveStreamUnique,
  saveUnique,
} from './documents.ts';

export interface MediaDeps {
  /** Where the files of a platform's users come from; none when its users send none. */
  files(platform: string): FileSource | undefined;
  /** Speech to text; undefined when not configured. */
  transcriber: Transcriber | undefined;
  /** Describes photos for a model that cannot see; undefined when not configured. */
  vision: ChatModel | undefined;
  quota: QuotaGate;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** Where photos are kept (SATCHEL_HOME/media), so history can refer to them. */
  mediaDir: string;
  /** A voice message was transcribed: its channel may show the words (Channel.showTranscript). */
  heard?(event: InboundEvent, transcript: string): void;
}

/** The turn a media message belongs to. */
export interface MediaTurn {
  scope: UsageScope & { pack: string; sessionId: string };
  packCaps?: PackCaps | undefined;
  /** The model that answers takes images inline. */
  acceptsImages: boolean;
  /** The active pack's workspace (documents are saved there); undefined without a pack. */
  filesDir: string | undefined;
  signal: AbortSignal;
}

type Event<K extends InboundEvent['kind']> = Extract<InboundEvent, { kind: K }>;

/** Names the variable that turns speech to text on (SPEC §1: STT_PROVIDER and its defaults). */
export const NO_STT =
  'I cannot listen to voice messages here: speech-to-text is off (STT_PROVIDER; a GROQ_API_KEY, or an OPENAI_API_KEY on OpenAI, turns it on). Please send it as text.';
export const STT_FAILED =
  'I could not transcribe that voice message: the speech-to-text service failed. Please try again in a moment, or send it as text.';
export const NOTHING_HEARD = 'I could not make out any words in that voice message.';
export const NO_VISION =
  'I cannot look at photos here: the chat model cannot see images and no vision model is set up (VISION_MODEL and its key). Please describe it in words.';
export const VISION_FAILED =
  'I could not look at that photo: the vision model failed. Please try again in a moment.';

/**
 * Media normalization (SPEC §2 step 5): turns what the user sent into the turn's input. Voice
 * becomes a labelled transcript, photos go inline to a model that can see or are described
 * by the vision model, a document is saved in the pack's workspace (and a small text one is
 * given inline). Every paid call passes the quota gate first and leaves a ledger row. When
 * something cannot be done, a MediaError says what, and nothing is sent to the model.
 */
export function createMediaInputs(deps: MediaDeps) {
  const { clock } = deps;

  async function download(event: InboundEvent, file: FileRef, signal: AbortSignal) {
    const files = deps.files(event.address.platform);
    if (!files) throw new MediaError('no file source', 'Files cannot be received here.');
    // The channel said how big it is: refuse before fetching a byte.
    if (file.size !== undefined && file.size > files.maxBytes)
      throw new FileTooLargeError(file.size, files.maxBytes);
    return files.download(file.fileId, { maxBytes: files.maxBytes, signal });
  }

  /** One paid call: the quota gate, the call, its ledger row (also when it fails). */
  function paid<T>(
    turn: MediaTurn,
    what: { kind: 'stt' | 'vision'; provider: string; model: string },
    call: () => Promise<T>,
    use: (result: T) => CallUse,
  ): Promise<T> {
    deps.quota.check({ ...turn.scope, packCaps: turn.packCaps }, what);
    return bookedCall(deps, { ...what, scope: turn.scope }, call, use);
  }

  async function voice(event: Event<'voice'>, turn: MediaTurn): Promise<string> {
    const stt = deps.transcriber;
    if (!stt) throw new MediaError('no speech-to-text configured', NO_STT);
    const file = await download(event, event.file, turn.signal);
    const fileName = event.fileName ?? path.basename(file.remotePath);
    let result: Awaited<ReturnType<Transcriber['transcribe']>>;
    try {
      result = await paid(
        turn,
        { kind: 'stt', ...stt.info },
        () =>
          stt.transcribe(
            { data: file.data, fileName, mimeType: event.mimeType },
            { signal: turn.signal },
          ),
        (r) => ({ audioSeconds: r.durationSec ?? event.durationSec }),
      );
    } catch (error) {
      throw rethrow(error, 'transcription failed', STT_FAILED);
    }
    const text = result.text.trim();
    if (!text) throw new MediaError('empty transcript', NOTHING_HEARD);
    deps.heard?.(event, text);
    return voiceText(text, event.caption);
  }

  /**
   * Photos (one, or an album's): inline for a model that sees, else described. What a photo
   * says is outside content (SPEC §17): a description comes in its envelope, and a photo
   * given inline taints the turn by name.
   */
  async function photos(
    event: InboundEvent,
    refs: FileRef[],
    caption: string,
    turn: MediaTurn,
  ): Promise<{ content: string; images?: ImageInput[]; taint?: string }> {
    const downloaded: DownloadedFile[] = [];
    for (const ref of refs) downloaded.push(await download(event, ref, turn.signal));
    const images = downloaded.map((f) => ({ mimeType: imageType(f.remotePath), data: f.data }));
    // Kept once: where the source keeps it already, else a copy under media/.
    const kept = images.map(
      (image, i) => downloaded[i]!.keptAs ?? keep(image.data, image.mimeType),
    );
    const inline = images.map((i) => ({ mimeType: i.mimeType, data: i.data.toString('base64') }));
    const what = refs.length === 1 ? 'Photo' : `Album of ${refs.length} photos`;
    const refsText = `kept as ${kept.join(', ')}`;
    if (turn.acceptsImages) {
      const content = withCaption(`[${what}, attached; ${refsText}]`, caption);
      return { content, images: inline, taint: what.toLowerCase() };
    }
    const vision = deps.vision;
    if (!vision) throw new MediaError('no vision model configured', NO_VISION);
    let description: string;
    try {
      const response = await paid(
        turn,
        { kind: 'vision', ...vision.info },
        () => vision.complete(describeRequest(inline, caption), { signal: turn.signal }),
        (r) => ({ images: inline.length, ...r.usage }),
      );
      description = response.text.trim();
    } catch (error) {
      throw rethrow(error, 'vision failed', VISION_FAILED);
    }
    const label = `[${what}, described by a vision model because I cannot see images; ${refsText}]`;
    const described = envelope('photo description', description);
    return { content: withCaption(`${label}\n${described}`, caption) };
  }

  async function document(
    event: Event<'document'>,
    turn: MediaTurn,
  ): Promise<{ content: string; changes: Change[] }> {
    const dir = turn.filesDir ?? path.join(deps.mediaDir, 'files');
    makePrivateDir(dir);
    // A name that forges a marker is saved as the model reads it: the path it is shown is real.
    const named = { ...event, name: neutralise(event.name) };
    const { saved, bytes, data } = await keepDocument(named, dir, turn.signal);
    const where = turn.filesDir ? `the pack workspace as files/${saved}` : `media/files/${saved}`;
    // The file's name and type are outside words too: on one line, neutralised (SPEC §17).
    const head = neutralise(
      `[File received: "${event.name}" (${event.mimeType}, ${bytes} bytes), saved in ${where}]`,
    ).replace(/[\r\n\u2028\u2029]+/g, ' ');
    const text = data && inlineText(event.name, event.mimeType, data);
    // Its text is someone else's: it reaches the model as data (SPEC §17).
    const body =
      text === undefined ? head : `${head}\nIts content:\n${envelope(`file ${event.name}`, text)}`;
    return { content: withCaption(body, event.caption), changes: [{ kind: 'file', name: saved }] };
  }

  /**
   * Saves a document in `dir`: streamed there when its source reads large files as streams
   * (a self-hosted Bot API server's, up to its `maxStreamBytes`), else downloaded whole. A
   * small one's bytes come back for its inline text.
   */
  async function keepDocument(event: Event<'document'>, dir: string, signal: AbortSignal) {
    const files = deps.files(event.address.platform);
    const max = files?.maxStreamBytes;
    if (!files?.stream || max === undefined) {
      const file = await download(event, event.file, signal);
      return {
        saved: saveUnique(dir, event.name, file.data),
        bytes: file.data.length,
        data: file.data,
      };
    }
    if (event.file.size !== undefined && event.file.size > max)
      throw new FileTooLargeError(event.file.size, max);
    const file = await files.stream(event.file.fileId, { maxBytes: max, signal });
    const saved = await saveStreamUnique(dir, event.name, file.stream, signal);
    const small = file.bytes <= INLINE_TEXT_LIMIT;
    return {
      saved,
      bytes: file.bytes,
      data: small ? readFileSync(path.join(dir, saved)) : undefined,
    };
  }

  /** Keeps a photo under SATCHEL_HOME/media; returns the path history refers to. */
  function keep(data: Buffer, mimeType: string): string {
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    const dir = path.join(deps.mediaDir, day);
    makePrivateDir(dir);
    const ext = Object.entries(IMAGE_TYPES).find(([, type]) => type === mimeType)?.[0] ?? '.jpg';
    const name = `${randomUUID()}${ext}`;
    writeFileSync(path.join(dir, name), data, { mode: PRIVATE_FILE });
    return `media/${day}/${name}`;
  }

  return {
    /** The input for one media event (an album: all its photos); text kinds are not handled. */
    async input(
      event: InboundEvent,
      turn: MediaTurn,
    ): Promise<Omit<UserInput, 'sourceKey'> | undefined> {
      const kept =
        event.kind === 'voice'
          ? audioKeptAsFile(event, deps.files(event.address.platform))
          : undefined;
      if (kept) return document(kept, turn);
      // A paid call follows every media message: over a cap, nothing is even downloaded.
      const stt = event.kind === 'voice' ? deps.transcriber?.info : undefined;
      deps.quota.check(
        { ...turn.scope, packCaps: turn.packCaps },
        stt ? { kind: 'stt', ...stt } : undefined,
      );
      switch (event.kind) {
        case 'voice':
          return { content: await voice(event, turn) };
        case 'photo':
          return photos(event, [event.file], event.caption, turn);
        case 'album':
          return photos(
            event,
            event.photos.map((p) => p.file),
            event.caption,
            turn,
          );
        case 'document':
          if (isPicture(event.mimeType)) return photos(event, [event.file], event.caption, turn);
          return document(event, turn);
        default:
          return undefined;
      }
    },
  };
}

export type MediaInputs = ReturnType<typeof createMediaInputs>;

/** Our own errors pass; an abort stays an abort; anything else becomes `userMessage`. */
function rethrow(error: unknown, message: string, userMessage: string): unknown {
  // Ours (a quota refusal, a download failure) say what happened already.
  if (isAbort(error) || (error instanceof SatchelError && !(error instanceof ProviderError)))
    return error;
  return new MediaError(message, userMessage, error);
}

function withCaption(body: string, caption: string): string {
  const text = caption.trim();
  return text ? `${body}\nCaption: ${text}` : body;
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

/** A photo's remote name may have no image extension (then it is a JPEG); documents keep theirs. */
function imageType(remotePath: string): string {
  return IMAGE_TYPES[path.extname(remotePath).toLowerCase()] ?? 'image/jpeg';
}

/** A picture sent "as a file" is looked at like a photo. */
export function isPicture(mimeType: string): boolean {
  return ['image/jpeg', 'image/png', 'image/webp'].includes(mimeType);
}
