import type { Channel, ChatAction, InlineButton, MediaKind, MediaSource } from '../core/ports.ts';

/** Anything satchel can ask a channel to send. */
export type OutboundPayload =
  | { kind: 'text'; text: string; format: 'markdown' | 'plain'; keyboard?: InlineButton[][] }
  | { kind: MediaKind; source: MediaSource; caption?: string; keyboard?: InlineButton[][] }
  | { kind: 'action'; action: ChatAction };

export interface Degraded {
  /** What to send instead; undefined when nothing is sent (a skipped chat action). */
  payload: OutboundPayload | undefined;
  /** What was changed, for the caller (a tool result tells the model). Absent if nothing. */
  note?: string;
}

/** What degrade reads of a channel: its payload capabilities and whether it shows actions. */
export type Sendable = Pick<Channel, 'capabilities' | 'sendChatAction'>;

/**
 * Converts a payload the channel cannot send into one it can, by declared capability:
 * photo → text with caption and link; voice → audio → text; audio and document → text with
 * link; a keyboard → a list of its options; a chat action (no `sendChatAction`) → nothing.
 */
export function degrade(payload: OutboundPayload, channel: Sendable): Degraded {
  const can = channel.capabilities;
  if (payload.kind === 'action')
    return channel.sendChatAction
      ? { payload }
      : { payload: undefined, note: `chat action "${payload.action}" skipped: not supported` };
  if (payload.kind === 'voice' && !can.voice && can.audio) {
    const audio = degrade({ ...payload, kind: 'audio' }, channel);
    return { payload: audio.payload, note: join('voice sent as audio', audio.note) };
  }
  if (payload.kind !== 'text' && !can[payload.kind]) {
    const text = asText(payload);
    const rest = degrade(text, channel);
    return {
      payload: rest.payload,
      note: join(`${payload.kind} sent as text with a link`, rest.note),
    };
  }
  if (payload.keyboard && !can.keyboard) {
    const { keyboard, ...rest } = payload;
    const options = keyboard.flat().map((b) => b.text);
    const listed =
      rest.kind === 'text'
        ? { ...rest, text: `${rest.text}\n\nOptions: ${options.join(', ')}` }
        : { ...rest, caption: `${rest.caption ?? ''}\n\nOptions: ${options.join(', ')}`.trim() };
    return { payload: listed, note: 'buttons sent as a list of options: buttons not supported' };
  }
  return { payload };
}

function asText(payload: Extract<OutboundPayload, { source: MediaSource }>): OutboundPayload {
  const link =
    'url' in payload.source
      ? `[${payload.kind}](${payload.source.url})`
      : `${payload.kind} file: \`${payload.source.path.split(/[\\/]/).at(-1)}\``;
  const text = payload.caption ? `${payload.caption}\n\n${link}` : link;
  return {
    kind: 'text',
    text,
    format: 'markdown',
    ...(payload.keyboard ? { keyboard: payload.keyboard } : {}),
  };
}

function join(first: string, second: string | undefined): string {
  return second ? `${first}; ${second}` : first;
}
