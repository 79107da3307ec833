import type { PinChange } from './types.ts';

/** A description shown in a change is cut to this many characters. */
const SHOWN_CHARS = 120;

/** One phrase for a change: `added since…`, `description changed since it was pinned`. */
export function changeSummary(change: PinChange): string {
  if (change.kind === 'added') return "added since the server's tools were pinned";
  const parts: string[] = [];
  if (change.description) parts.push('description');
  if (change.schemaKeys) parts.push(`input schema (${change.schemaKeys.join(', ')})`);
  if (change.effect) parts.push(`read-only mark (${effectWords(change.effect)})`);
  return `${parts.join(' and ')} changed since it was pinned`;
}

/** The lines `pack trust` shows under a tool: what it was and what it is now. */
export function changeLines(change: PinChange): string[] {
  if (change.kind === 'added') return ['added: the server did not list it when it was pinned'];
  const lines: string[] = [];
  if (change.description)
    lines.push(
      `description changed: ${quote(change.description.from)} → ${quote(change.description.to)}`,
    );
  if (change.schemaKeys) lines.push(`schema changed: ${change.schemaKeys.join(', ')}`);
  if (change.effect) lines.push(effectLine(change.effect));
  return lines;
}

type EffectChange = NonNullable<Extract<PinChange, { kind: 'changed' }>['effect']>;

/** What the owner is asked to trust when the server's read-only mark changed. */
function effectLine(effect: EffectChange): string {
  return effect.to === 'read'
    ? 'marked read-only: calls would no longer ask for approval'
    : 'no longer marked read-only: calls would ask for approval again';
}

const effectWords = (effect: EffectChange) => `${effect.from} → ${effect.to}`;

/** A text on one line, in quotes, cut at SHOWN_CHARS. */
function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS - 1)}…` : flat);
}
