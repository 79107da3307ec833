/**
 * How `satchel chat` looks: on a terminal, a coloured prompt and dimmed notes of satchel's
 * own; on a pipe (or with NO_COLOR set), plain text with no escape codes, so what is piped
 * or tested reads as written.
 */
export interface TerminalStyle {
  /** A line of satchel's own (a banner, a hint, a notice). */
  note(text: string): string;
  /** Shown where the user types next; empty for none. */
  prompt: string;
}

export const PLAIN_STYLE: TerminalStyle = { note: (text) => text, prompt: '' };

const DIM = (text: string) => `\x1b[2m${text}\x1b[22m`;
export const TTY_STYLE: TerminalStyle = { note: DIM, prompt: '\x1b[1;36m›\x1b[0m ' };

/** The style for `output`: colour and a prompt only on a terminal, and not under NO_COLOR. */
export function styleFor(
  output: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): TerminalStyle {
  return output.isTTY === true && !env.NO_COLOR ? TTY_STYLE : PLAIN_STYLE;
}

/** Moves to the start of the line and erases it: the prompt goes before other output. */
const ERASE_LINE = '\r\x1b[K';

/**
 * Output with a prompt: after each finished line the prompt is shown, and it is erased
 * again before anything else is printed, so replies, notes and drafts never follow it on
 * its line. Without a prompt, text is written as it is.
 */
export function createPromptedOutput(write: (text: string) => void, prompt: string) {
  let shown = false;
  const showPrompt = () => {
    if (prompt === '' || shown) return;
    write(prompt);
    shown = true;
  };
  return {
    write(text: string): void {
      if (text === '') return;
      if (shown) write(ERASE_LINE);
      shown = false;
      write(text);
      if (text.endsWith('\n')) showPrompt();
    },
    /**
     * The user ended a line: the terminal moved below the prompt they typed on. A blank
     * line gets the prompt again (nothing will answer it).
     */
    lineTyped(blank: boolean): void {
      shown = false;
      if (blank) showPrompt();
    },
  };
}
