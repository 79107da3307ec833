import type { Origin } from './origin.ts';

/** Where a conversation lives. `threadId` is set only for forum-topic messages. */
export interface Address {
  /** The channel the conversation is on: the `platform` of its Channel. */
  platform: string;
  /** The channel's own chat id, as a string: the core stores and compares it, never reads it. */
  chatId: string;
  threadId?: string;
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

/**
 * A stable string for an address: `<platform>:<chatId>` or `<platform>:<chatId>:<threadId>`.
 * An id's `%` and `:` are escaped (`%25`, `%3A`), so an id holding a colon (a Matrix room's)
 * cannot pass for a chat and its thread; digits and the like are left as they are.
 */
export function addressKey(address: Address): string {
  const base = `${address.platform}:${keyPart(address.chatId)}`;
  return address.threadId === undefined ? base : `${base}:${keyPart(address.threadId)}`;
}

const keyPart = (id: string) => id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));

/** What every inbound event carries, whatever its kind. */
export interface InboundMeta {
  /** Where it came from; acknowledged together with the reply. */
  origin: Origin;
  address: Address;
  chatType: ChatType;
  senderId: string;
  messageId?: string;
  receivedAt: number;
  /** The forum topic's name, when the update carries it (creation, rename, replies to it). */
  topicName?: string;
  /** The chat is a supergroup with topics turned on. */
  isForum?: boolean;
  /** The text of the message this one replies to (trimmed), when it is a reply. */
  quote?: string;
  /**
   * The id of the message this one replies to, in the same chat (the channel's own id): a
   * reply to a job's message is answered by the job's pack (SPEC §8).
   */
  replyTo?: string;
  /**
   * Who wrote `quote`, named as the channel knows them, when it is someone else's words:
   * not the sender's, the bot's or the owner's (another group member, a forwarded message's
   * origin, another chat). The quote then reaches the model as untrusted content (SPEC §17).
   */
  quoteFrom?: string;
  /**
   * The message was forwarded from someone else (named as the channel knows them): its text
   * reaches the model as untrusted content (SPEC §17).
   */
  forwardedFrom?: string;
  /**
   * The message speaks to the bot (mentions it, replies to it, or is a command for it). Set by
   * edges where people talk among themselves (groups); in groups an event without it is a
   * prompt only where every message is (GROUP_REPLY=all, a pack's topic).
   */
  addressed?: boolean;
  /** How the sender is called (shown to the model in groups, and in "this question is for …"). */
  senderName?: string;
}

export interface FileRef {
  fileId: string;
  /** Bytes, when the channel said. */
  size?: number;
}

/** A photo of an album, in the order it arrived. */
export interface AlbumPhoto {
  file: FileRef;
  /** The update that carried it (each photo of an album is its own update). */
  updateId: number;
}

export type InboundPayload =
  | { kind: 'text'; text: string }
  | { kind: 'command'; command: string; args: string }
  | { kind: 'callback'; callbackId: string; data: string }
  /** A voice note or an audio file; `fileName` for audio files that have one. */
  | {
      kind: 'voice';
      file: FileRef;
      durationSec: number;
      mimeType?: string;
      fileName?: string;
      caption: string;
    }
  | { kind: 'photo'; file: FileRef; caption: string }
  | { kind: 'document'; file: FileRef; name: string; mimeType: string; caption: string }
  /** One photo of an album (`media_group_id`); the batcher gathers them into one turn. */
  | { kind: 'album'; groupId: string; photos: AlbumPhoto[]; caption: string }
  /** A later version of a text the user sent earlier (`messageId` is that message's id). */
  | { kind: 'edited'; text: string }
  /** Something satchel cannot take in (a video, a video note, a GIF): `what` names it. */
  | { kind: 'unsupported'; what: string }
  | { kind: 'topic'; name: string }
  /**
   * A group or its topic changed: a topic closed or reopened, a group that moved to a new
   * chat id (`movedTo`: the same conversations go on there).
   */
  | { kind: 'chat_change'; change: 'topic_closed' | 'topic_reopened' | 'moved'; movedTo?: string }
  /**
   * A reaction put on one of the bot's messages (`messageId`): never a turn of its own, it
   * joins the conversation's next turn as a short note.
   */
  | { kind: 'reaction'; emoji: string }
  /** A scheduled job's run (origin `job`): its own session, nothing streamed. */
  | { kind: 'job'; job: JobRun };

/** A job run as the pipeline takes it; it delivers to the event's address. */
export interface JobRun {
  id: string;
  pack: string;
  dueAt: number;
  /** The skill pinned for the run, if the job names one. */
  skill: string | undefined;
  /** What the model is asked (the job's prompt, or a request to run its skill). */
  prompt: string;
  /** The job's own session key (one per job, so a daily job remembers its earlier runs). */
  sessionKey: string;
  /** The job's own chat model (a cron entry's `model`), instead of the chat's. */
  model?: string | undefined;
  /**
   * The untrusted sources of the session that created or changed it (SPEC §17): its runs
   * start tainted by them. Absent for a clean job.
   */
  taint?: readonly string[] | undefined;
  /** Who created it (`people.id`, SPEC §19): its runs are booked to them. */
  person?: string | undefined;
}

/** How a job run ended. */
export type JobOutcome = 'delivered' | 'silent' | 'failed' | 'refused' | 'interrupted';

export type InboundEvent = InboundMeta & InboundPayload;
export type InboundKind = InboundPayload['kind'];

export type Role = 'user' | 'assistant' | 'tool' | 'system';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** An image given to a model inline. */
export interface ImageInput {
  mimeType: string;
  /** The bytes, base64. */
  data: string;
}

/** One message of a conversation, as the agent and the model see it. */
export interface ChatMessage {
  role: Role;
  content: string;
  /** Images that go with `content` (user messages of the current turn only). */
  images?: ImageInput[];
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

export interface TokenUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** The call's cost in USD when the provider reports it (a router's `usage.cost`). */
  costUsd?: number | undefined;
}
