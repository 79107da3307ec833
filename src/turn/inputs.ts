import type { UserInput } from '../agent/agent.ts';
import { originKey } from '../core/origin.ts';
import { envelope, neutralise } from '../core/trust.ts';
import type { InboundEvent } from '../core/types.ts';
import type { MediaInputs, MediaTurn } from '../inbound/media.ts';
import type { Skill } from '../packs/loader.ts';
import { pinnedSkillText } from '../packs/prompt.ts';

/** Something that happened in a conversation between turns (a reaction), told to the next. */
export interface Note {
  event: InboundEvent;
  text: string;
}

/** What the model reads before a text that was edited after it had been answered. */
export const EDIT_LABEL = '[The user edited one of their earlier messages. The new version:]';

/** Each message of a turn keyed by its own origin, so a replay stores only what is new. */
export function sourceKey(event: InboundEvent): string {
  return originKey(event.origin);
}

/**
 * The turn's input, one per message: texts as they are (an edit labelled as one, a reply with
 * the text it quotes), media through `media` (downloads, transcription, vision, documents).
 */
export async function turnInputs(
  events: InboundEvent[],
  media: MediaInputs,
  turn: MediaTurn,
): Promise<UserInput[]> {
  const inputs: UserInput[] = [];
  for (const event of events) {
    const text = textOf(event);
    const input = text === undefined ? await media.input(event, turn) : { content: text };
    if (input)
      inputs.push({ ...input, content: said(event, input.content), sourceKey: sourceKey(event) });
  }
  return inputs;
}

/** The texts of a batch (texts only: no download, no paid call). */
export function textInputs(events: InboundEvent[]): UserInput[] {
  return events.flatMap((e) => {
    const text = textOf(e);
    return text === undefined ? [] : [{ content: said(e, text), sourceKey: sourceKey(e) }];
  });
}

/** Notes between turns (reactions), as inputs in their own right. */
export function noteInputs(notes: readonly Note[]): UserInput[] {
  return notes.map((n) => ({ content: said(n.event, n.text), sourceKey: sourceKey(n.event) }));
}

/**
 * What the model reads of a message: its quote first, and in a group (where several people
 * talk) who said it (a name its owner chose, neutralised like every label from outside).
 */
function said(event: InboundEvent, content: string): string {
  const text = quoted(event, forwarded(event, content));
  const group = event.chatType === 'group' || event.chatType === 'supergroup';
  return group && event.senderName ? `${neutralise(event.senderName)}: ${text}` : text;
}

function textOf(event: InboundEvent): string | undefined {
  if (event.kind === 'text') return event.text;
  if (event.kind === 'edited') return `${EDIT_LABEL}\n${event.text}`;
  return undefined;
}

/** A forwarded message is someone else's words: they reach the model as data (SPEC §17). */
function forwarded(event: InboundEvent, content: string): string {
  return event.forwardedFrom === undefined
    ? content
    : envelope(`forwarded message from ${event.forwardedFrom}`, content);
}

/**
 * A reply's quote, before the reply (SPEC §17): neutralised whoever wrote it, and someone
 * else's words (`quoteFrom`: another member, a forward's origin, another chat) in an envelope
 * naming them.
 */
function quoted(event: InboundEvent, content: string): string {
  if (!event.quote) return content;
  const head =
    event.quoteFrom === undefined
      ? `[In reply to: "${neutralise(event.quote)}"]`
      : `[In reply to:]\n${envelope(`quote from ${event.quoteFrom}`, event.quote)}`;
  return `${head}\n${content}`;
}

/**
 * A skill command's instructions, put before the user's first message (and stored with it)
 * rather than in the system prompt: the system prompt stays the same from turn to turn, so
 * a provider's prompt cache keeps serving it, and the instructions stay in the history for
 * the turns that follow the command (a quiz goes on after its first question).
 */
export function withPinnedSkill(inputs: UserInput[], skill: Skill | undefined): UserInput[] {
  const [first, ...rest] = inputs;
  if (!skill || !first) return inputs;
  return [
    { ...first, content: `${pinnedSkillText(skill)}\n\n# The user's message\n${first.content}` },
    ...rest,
  ];
}
