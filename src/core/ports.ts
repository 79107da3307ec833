import type { Readable } from 'node:stream';
import type { Change } from './changes.ts';
import type { Address, ChatMessage, ImageInput, TokenUsage, ToolCall } from './types.ts';

/** The logging port; pino's logger satisfies it. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
}

/** What a chat model is and what it accepts; degrade decisions read this, never a vendor name. */
export interface ModelInfo {
  provider: string;
  model: string;
  acceptsImages: boolean;
}

/** Audio to transcribe: the bytes and a file name whose extension names the format. */
export interface AudioInput {
  data: Buffer;
  fileName: string;
  mimeType?: string | undefined;
}

/**
 * Speech to text. Rejects with a ProviderError (or an abort when `signal` fires).
 * `durationSec` is the audio's length when the service reports it.
 */
export interface Transcriber {
  readonly info: { provider: string; model: string };
  transcribe(
    audio: AudioInput,
    options: { signal: AbortSignal },
  ): Promise<{ text: string; durationSec: number | undefined }>;
}

/**
 * Text to speech: `text` spoken as a voice note, Opus in an OGG container (what Telegram
 * plays as a voice note and browsers play in `<audio>`). Rejects with a ProviderError (or an
 * abort when `signal` fires), and with a ProviderError as soon as the answer runs past
 * `maxBytes`: it is never held whole first.
 */
export interface Speaker {
  readonly info: { provider: string; model: string };
  speak(text: string, options: { signal: AbortSignal; maxBytes: number }): Promise<Buffer>;
}

/** A file a user sent, downloaded. `remotePath` is the channel's name for it (with extension). */
export interface DownloadedFile {
  data: Buffer;
  remotePath: string;
  /**
   * Where the source keeps this file already, relative to SATCHEL_HOME, for as long as its
   * conversation (the web chat's pictures): the pipeline names it instead of keeping a copy.
   */
  keptAs?: string;
}

/**
 * Fetches files users send. Rejects with FileTooLargeError — before downloading anything —
 * when the file is bigger than `maxBytes`, with a MediaError when it cannot be fetched, and
 * with an abort when `signal` fires.
 */
export interface FileSource {
  /** The largest file it can fetch (Telegram's Bot API: 20 MB). */
  readonly maxBytes: number;
  download(
    fileId: string,
    options: { maxBytes: number; signal: AbortSignal },
  ): Promise<DownloadedFile>;
  /** The largest file `stream` takes (a self-hosted Bot API server's local files: 2000 MB). */
  readonly maxStreamBytes?: number;
  /**
   * A file too big to hold in memory, as a stream of exactly `bytes` bytes, which the caller
   * reads to the end or destroys. Without it, every file is downloaded whole (`download`).
   */
  stream?(
    fileId: string,
    options: { maxBytes: number; signal: AbortSignal },
  ): Promise<{ stream: Readable; bytes: number; remotePath: string }>;
}

/**
 * A chat model. `complete` streams text deltas to `onText` when given and resolves with the
 * whole answer. It rejects with a ProviderError (or an abort when `signal` fires).
 */
export interface ChatModel {
  readonly info: ModelInfo;
  complete(
    request: ChatRequest,
    options: { signal: AbortSignal; onText?: (delta: string) => void },
  ): Promise<ChatResponse>;
}

export type ChatAction = 'typing' | 'upload_photo' | 'upload_document' | 'record_voice';

export interface InlineButton {
  text: string;
  data: string;
  /** A letter a channel without buttons may take for a press (the terminal's `y`/`n`). */
  key?: string;
}

export interface SendTextOptions {
  /** The text is in the channel's own format (its `render`); otherwise it is plain text. */
  formatted: boolean;
  keyboard?: InlineButton[][];
  /**
   * The message is a scheduled job's delivered answer, and this its pack (the outbox row's
   * `job_pack`). A channel may show it as such (the web chat notifies a page in the
   * background of it); one that does not need it ignores it.
   */
  job?: string;
}

/** What a part of the pipeline asks to send: Markdown from the model, or plain text. */
export interface OutboundText {
  text: string;
  format: 'markdown' | 'plain';
  keyboard?: InlineButton[][];
}

/**
 * One message as a channel sends it: `text` in the channel's own format, `plain` its words
 * alone (sent instead when the channel refuses the markup). The outbox stores and sends
 * parts without knowing their format.
 */
export interface TextPart {
  text: string;
  plain: string;
  keyboard?: InlineButton[][];
}

/**
 * How a channel shows text: its markup and its length limits. Every part it returns fits one
 * message and shows something (a part with nothing visible is left out).
 */
export interface Renderer {
  /** A message's parts, in order; a keyboard rides on the last one. */
  text(message: OutboundText): TextPart[];
  /** A media caption (Markdown) and, when it does not fit, the text messages that follow. */
  caption(markdown: string): { caption?: TextPart; rest: TextPart[] };
}

export type MediaKind = 'photo' | 'audio' | 'voice' | 'document';

/** A file to send: a local path (uploaded) or a URL (the channel fetches it). */
export type MediaSource = { path: string } | { url: string };

export interface MediaMessage {
  kind: MediaKind;
  source: MediaSource;
  /** The caption, already rendered by the channel's `render`. */
  caption?: { text: string; formatted: boolean };
  keyboard?: InlineButton[][];
  /** A scheduled job's, from this pack: as `SendTextOptions.job`. */
  job?: string;
}

/**
 * The payloads a channel can send. Anything it cannot is degraded (see outbound/degrade.ts).
 * What else it can do is told by the optional methods of Channel.
 */
export interface ChannelCapabilities {
  photo: boolean;
  audio: boolean;
  voice: boolean;
  document: boolean;
  keyboard: boolean;
}

/**
 * One chat platform's side of outbound delivery: one method per platform call, no retries,
 * no queueing (the outbox does that). Failures reject with ChannelError; a local file that
 * cannot be read rejects with UnreadableFileError.
 *
 * The optional methods are the capability model: a channel that lacks one gets the fallback
 * written beside it, and nothing asks which platform it is.
 */
export interface Channel {
  /** The `platform` of the addresses this channel serves; outbox rows record it. */
  readonly platform: string;
  readonly capabilities: ChannelCapabilities;
  /** How it renders text; the outbox stores what this returns. */
  readonly render: Renderer;
  /**
   * The least time between two updates of a streamed reply, in ms. Without it, one a second:
   * Telegram's limit on edits. A channel with no such limit (the web chat) streams faster.
   */
  readonly streamIntervalMs?: number;
  sendText(to: Address, text: string, options: SendTextOptions): Promise<{ messageId: string }>;
  sendMedia(to: Address, media: MediaMessage): Promise<{ messageId: string }>;
  /**
   * Replaces the text of a sent message. Without it a reply does not stream by editing, and
   * an edit the outbox holds is sent as a new message.
   */
  editText?(to: Address, messageId: string, text: string, options: SendTextOptions): Promise<void>;
  /** Removes a sent message. Without it a message the final answer no longer needs stays. */
  deleteMessage?(to: Address, messageId: string): Promise<void>;
  /**
   * Shows a draft of a reply being written (private chats). Without it a private chat streams
   * by editing when the channel can, and otherwise shows only the final text.
   */
  sendDraft?(
    to: Address,
    draftId: number,
    text: string,
    options: { formatted: boolean },
  ): Promise<void>;
  /** Shows "typing…" and the like for a few seconds. Without it nothing is shown. */
  sendChatAction?(to: Address, action: ChatAction): Promise<void>;
  /**
   * Stops the spinner on a pressed inline button, optionally with a short notice. Without it
   * there is nothing to answer (a notice is not shown).
   */
  answerCallback?(callbackId: string, text?: string): Promise<void>;
  /**
   * Creates a forum topic; rejects (`refused`) when the bot lacks the right to manage
   * topics. Without it the channel has no topics.
   */
  createTopic?(chatId: string, name: string): Promise<{ threadId: string }>;
  /**
   * Shows `emoji` as the bot's reaction on a message, or removes it (undefined). Without it
   * no acknowledgement is shown.
   */
  setReaction?(to: Address, messageId: string, emoji: string | undefined): Promise<void>;
  /**
   * Shows what a voice message said, in the message its sender sees (`source`: the message's
   * origin key, `originKey`), once it is transcribed. Without it the transcript reaches only
   * the model.
   */
  showTranscript?(to: Address, source: string, transcript: string): void;
}

/** What the user said, one input per message: stored once under `sourceKey`. */
export interface UserInput {
  content: string;
  sourceKey: string;
  /**
   * Images that go with this input to the model, in this turn only: the stored message
   * keeps a short reference, so history never replays the bytes.
   */
  images?: ImageInput[];
  /** What taking this input changed in what satchel keeps (a document saved). */
  changes?: Change[];
  /**
   * Outside content the model sees without an envelope (a photo given inline): it taints
   * the session, naming this source (SPEC §17).
   */
  taint?: string;
}

/** Runs the tools a model asked for; a failing tool becomes an error result the model sees. */
export interface ToolRunner {
  specs: ToolSpec[];
  /**
   * Runs one call; `pause` runs what waits for a person (an `ask_user` question, the owner's
   * approval) with the turn's deadline stopped.
   */
  run(
    call: ToolCall,
    signal: AbortSignal,
    pause?: <T>(work: () => Promise<T>) => Promise<T>,
  ): Promise<string>;
  /**
   * Takes what the turn was given (its input): outside content in it taints the turn, and so
   * does `taint` (the source of outside content the input carries without an envelope).
   */
  observe?(text: string, taint?: string): void;
  /** Too many calls failed in a row: the turn's next request carries no tools. */
  stopped?(): boolean;
  /**
   * The images the tools run since the last take returned (an MCP tool's), by tool: the
   * model sees them after those tools' results, in this turn only.
   */
  takeImages?(): { tool: string; images: ImageInput[] }[];
  /** The lasting changes the calls run so far made (successful ones only), in order. */
  changes?(): readonly Change[];
}
