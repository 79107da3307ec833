/**
 * How a transcribed voice message is stored and shown to the model (SPEC §2 step 5): the
 * label, the transcript, and the caption when there was one. One module writes and reads it,
 * so a channel that shows stored history can tell a voice message from typed text.
 */
export const VOICE_LABEL = '[Voice message, transcribed automatically: some words may be misheard]';

const CAPTION = '\nCaption: ';

/** A voice message's text as the turn carries it. */
export function voiceText(transcript: string, caption: string): string {
  const said = `${VOICE_LABEL}\n${transcript}`;
  const text = caption.trim();
  return text ? `${said}${CAPTION}${text}` : said;
}

/** The transcript and caption of a stored voice message; undefined for any other text. */
export function readVoiceText(
  content: string,
): { transcript: string; caption: string } | undefined {
  if (!content.startsWith(`${VOICE_LABEL}\n`)) return undefined;
  const rest = content.slice(VOICE_LABEL.length + 1);
  const at = rest.lastIndexOf(CAPTION);
  return at < 0
    ? { transcript: rest, caption: '' }
    : { transcript: rest.slice(0, at), caption: rest.slice(at + CAPTION.length) };
}
