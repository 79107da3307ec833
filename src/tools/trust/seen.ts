import { hasEnvelope } from '../../core/trust.ts';

const SOURCE = /<<untrusted source="([^"\n]*)">>/g;
/** Kept of what the turn has seen, for the URL rule: enough for any real turn. */
const MAX_SEEN_CHARS = 2_000_000;

/**
 * What one turn has read: the text of its input and results (a URL the model fetches in a
 * tainted turn must appear in it, verbatim) and the untrusted sources that tainted it.
 */
export function createSeen() {
  let text = '';
  const sources: string[] = [];
  return {
    /** Takes a piece of the turn's input or a tool's result. */
    add(piece: string): void {
      if (text.length < MAX_SEEN_CHARS) text += `\n${piece.slice(0, MAX_SEEN_CHARS - text.length)}`;
      if (!hasEnvelope(piece)) return;
      for (const [, source] of piece.matchAll(SOURCE))
        if (source !== undefined && !sources.includes(source)) sources.push(source);
    },
    /** Marks the turn tainted by `source` (a result put in its envelope by the runner). */
    taint(source: string): void {
      if (!sources.includes(source)) sources.push(source);
    },
    /** Whether `url` appeared, exactly, in what the turn has seen. */
    has(url: string): boolean {
      return url.length > 0 && text.includes(url);
    },
    tainted: () => sources.length > 0,
    sources: (): readonly string[] => sources,
  };
}

export type Seen = ReturnType<typeof createSeen>;
