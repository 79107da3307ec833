/**
 * Media from users, as Telegram sends them: voice notes, audio, photos (one size per file id,
 * smallest first) and albums, documents, stickers, videos, round videos and GIFs. A file's
 * `file_size` is that of the bytes registered with `addFile`, else a plausible default.
 */
import type { Chats, MessageOpts, UserRef } from './telegram-chats.ts';
import type { FileStore } from './telegram-file-store.ts';
import type { UpdateQueue } from './telegram-updates.ts';
import type { Json } from './telegram-wire.ts';

export interface VideoOpts {
  fileId?: string;
  duration?: number;
  fileSize?: number;
  caption?: string;
}

const PHOTO_WIDTHS = [90, 320, 800, 1280, 2560];

export class UserMedia {
  private nextAlbumId = 1;

  constructor(
    private readonly chats: Chats,
    private readonly files: FileStore,
    private readonly updates: UpdateQueue,
  ) {}

  /** A voice note (Telegram records them as `audio/ogg`, served as `voice/file_N.oga`). */
  voice(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        duration?: number;
        fileSize?: number;
        mimeType?: string;
        caption?: string;
      },
  ): number {
    const message = this.chats.userMessage(o);
    message.voice = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      duration: o.duration ?? 3,
      mime_type: o.mimeType ?? 'audio/ogg',
      file_size: o.fileSize ?? this.files.sizeOf(o.fileId, 12_000),
    };
    return this.withCaption(message, o.caption);
  }

  /** An audio file (music, a recording sent as a file); `file_name` only when given. */
  audio(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        fileName?: string;
        mimeType?: string;
        duration?: number;
        fileSize?: number;
        caption?: string;
      },
  ): number {
    const message = this.chats.userMessage(o);
    message.audio = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      duration: o.duration ?? 30,
      mime_type: o.mimeType ?? 'audio/mpeg',
      file_size: o.fileSize ?? this.files.sizeOf(o.fileId, 250_000),
      ...(o.fileName === undefined ? {} : { file_name: o.fileName }),
    };
    return this.withCaption(message, o.caption);
  }

  photo(
    o: UserRef & MessageOpts & { fileIds: string[]; caption?: string; mediaGroupId?: string },
  ): number {
    const message = this.chats.userMessage(o);
    message.photo = o.fileIds.map((fileId, i) => {
      const width = PHOTO_WIDTHS[i] ?? 2560 * (i - 3);
      const file_size = this.files.sizeOf(fileId, (i + 1) * 10_000);
      const height = Math.round(width * 0.75);
      return { file_id: fileId, file_unique_id: `u-${fileId}`, width, height, file_size };
    });
    if (o.caption !== undefined) message.caption = o.caption;
    if (o.mediaGroupId !== undefined) message.media_group_id = o.mediaGroupId;
    return this.updates.pushUpdate({ message });
  }

  /**
   * An album: one update per photo (`fileIds[i]` are photo i's sizes, smallest first), all
   * with the same `media_group_id`; the caption rides on the first, as Telegram sends it.
   * Returns the update ids in order.
   */
  album(
    o: UserRef & MessageOpts & { fileIds: string[][]; caption?: string; groupId?: string },
  ): number[] {
    const { fileIds, caption, groupId, ...rest } = o;
    const mediaGroupId = groupId ?? `album-${this.nextAlbumId++}`;
    return fileIds.map((sizes, i) =>
      this.photo({
        ...rest,
        fileIds: sizes,
        mediaGroupId,
        ...(i === 0 && caption !== undefined ? { caption } : {}),
      }),
    );
  }

  document(
    o: UserRef &
      MessageOpts & {
        fileId: string;
        fileName: string;
        mimeType?: string;
        fileSize?: number;
        caption?: string;
      },
  ): number {
    const message = this.chats.userMessage(o);
    message.document = {
      file_id: o.fileId,
      file_unique_id: `u-${o.fileId}`,
      file_name: o.fileName,
      mime_type: o.mimeType ?? 'application/octet-stream',
      file_size: o.fileSize ?? this.files.sizeOf(o.fileId, 1000),
    };
    return this.withCaption(message, o.caption);
  }

  sticker(o: UserRef & MessageOpts & { emoji?: string; fileId?: string }): number {
    const message = this.chats.userMessage(o);
    const fileId = o.fileId ?? 'sticker-1';
    message.sticker = {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      type: 'regular',
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
      ...(o.emoji === undefined ? {} : { emoji: o.emoji }),
    };
    return this.updates.pushUpdate({ message });
  }

  video(o: UserRef & MessageOpts & VideoOpts): number {
    const message = this.chats.userMessage(o);
    const fileId = o.fileId ?? 'video-1';
    message.video = {
      ...this.videoFile(fileId, o),
      width: 1280,
      height: 720,
      mime_type: 'video/mp4',
    };
    return this.withCaption(message, o.caption);
  }

  /** A round video message (no caption in Telegram). */
  videoNote(o: UserRef & MessageOpts & Omit<VideoOpts, 'caption'>): number {
    const message = this.chats.userMessage(o);
    message.video_note = { ...this.videoFile(o.fileId ?? 'video-note-1', o), length: 240 };
    return this.updates.pushUpdate({ message });
  }

  /** A GIF; like Telegram, the message also carries it as a `document`. */
  animation(o: UserRef & MessageOpts & VideoOpts): number {
    const message = this.chats.userMessage(o);
    const fileId = o.fileId ?? 'animation-1';
    const file = { file_name: 'animation.mp4', mime_type: 'video/mp4' };
    message.animation = { ...this.videoFile(fileId, o), width: 320, height: 240, ...file };
    message.document = {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      ...file,
      file_size: message.animation.file_size,
    };
    return this.withCaption(message, o.caption);
  }

  private videoFile(fileId: string, o: Omit<VideoOpts, 'caption'>): Json {
    return {
      file_id: fileId,
      file_unique_id: `u-${fileId}`,
      duration: o.duration ?? 5,
      file_size: o.fileSize ?? this.files.sizeOf(fileId, 500_000),
    };
  }

  /** Queues the message, with `caption` when there is one. */
  private withCaption(message: Json, caption: string | undefined): number {
    if (caption !== undefined) message.caption = caption;
    return this.updates.pushUpdate({ message });
  }
}
