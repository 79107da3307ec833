/** Where a conversation lives. `threadId` is set only for forum-topic messages. */
export interface Address {
  platform: 'tg';
  chatId: number;
  threadId?: number;
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

/** A stable string for an address: `tg:<chatId>` or `tg:<chatId>:<threadId>`. */
export function addressKey(address: Address): string {
  const base = `${address.platform}:${address.chatId}`;
  return address.threadId === undefined ? base : `${base}:${address.threadId}`;
}

/** What every inbound event carries, whatever its kind. */
export interface InboundMeta {
  /** Telegram update ids behind this event (several for a batch or an album). */
  updateIds: number[];
  address: Address;
  chatType: ChatType;
  senderId: number;
  messageId?: number;
  receivedAt: number;
  /** The forum topic's name, when the update carries it (creation, rename, replies to it). */
  topicName?: string;
  /** The chat is a supergroup with topics turned on. */
  isForum?: boolean;
}

export interface TelegramFileRef {
  fileId: string;
  size?: number;
}

export type InboundPayload =
  | { kind: 'text'; text: string }
  | { kind: 'command'; command: string; args: string }
  | { kind: 'callback'; callbackId: string; data: string }
  | { kind: 'voice'; file: TelegramFileRef; durationSec: number; mimeType?: string }
  | { kind: 'photo'; file: TelegramFileRef; caption: string }
  | { kind: 'document'; file: TelegramFileRef; name: string; mimeType: string; caption: string }
  | { kind: 'album'; groupId: string; photos: TelegramFileRef[]; caption: string }
  | { kind: 'edited'; text: string }
  | { kind: 'topic'; name: string };

export type InboundEvent = InboundMeta & InboundPayload;
export type InboundKind = InboundPayload['kind'];

export type Role = 'user' | 'assistant' | 'tool' | 'system';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One message of a conversation, as the agent and the model see it. */
export interface ChatMessage {
  role: Role;
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

export interface TokenUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}
