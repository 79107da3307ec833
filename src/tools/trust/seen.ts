import { hasEnvelope } from '../../core/trust.ts';

const SOURCE = /<<untrusted source="([^"\n]*)">>/g;
const ENVELOPE = /<<untrusted source="[^"\n]*">>\n([\s\S]*?)\n<<end untrusted>>/g;
/** Kept of what the owner said and of untrusted content, for the URL rule: enough for any turn. */
const MAX_SEEN_CHARS = 2_000_000;

/** Where a URL appeared: in the owner's own words, or only inside untrusted content. */
export type UrlOrigin = 'owner' | 'untrusted';

/** A piece of what a turn read: the owner's words (which may hold envelopes) or a result. */
export type SeenPiece =
  | { from: 'owner'; text: string }
  /** A tool's result as the model reads it: only its envelopes count (SPEC §17). */
  | { from: 'result'; text: string };

/**
 * What a session has seen, for the URL rule of SPEC §17: the owner's own words and the
 * content inside envelopes — never a result of a tool that reads satchel's own data
 * (`db_query`, `memory`, …), which the model can shape to carry the owner's data out. And
 * the untrusted sources that tainted it, from `sources` (the session's, a job's) on.
 * `earlier` gives the session's earlier pieces; it is read only when a URL is looked up
 * that this turn has not seen, so a clean turn never pays for it.
 */
export function createSeen(start: { sources?: readonly string[]; earlier?: () => SeenPiece[] }) {
  const owner = createText();
  const untrusted = createText();
  const sources: string[] = [...(start.sources ?? [])];
  let earlierRead = start.earlier === undefined;

  function add(piece: SeenPiece): string[] {
    const added: string[] = [];
    if (!hasEnvelope(piece.text)) {
      if (piece.from === 'owner') owner.add(piece.text);
      return added;
    }
    for (const [, body] of piece.text.matchAll(ENVELOPE)) untrusted.add(body ?? '');
    if (piece.from === 'owner') owner.add(piece.text.replace(ENVELOPE, ''));
    for (const [, source] of piece.text.matchAll(SOURCE))
      if (source !== undefined && !sources.includes(source)) {
        sources.push(source);
        added.push(source);
      }
    return added;
  }

  function readEarlier(): void {
    if (earlierRead) return;
    earlierRead = true;
    for (const piece of start.earlier?.() ?? []) add(piece);
  }

  return {
    /** Takes a piece the session read; returns the untrusted sources it newly names. */
    add,
    /** Marks the session tainted by `source`; true when that source is new. */
    taint(source: string): boolean {
      if (sources.includes(source)) return false;
      sources.push(source);
      return true;
    },
    /** Where `url` appeared, exactly: the owner's words first; undefined when nowhere. */
    origin(url: string): UrlOrigin | undefined {
      if (url.length === 0) return undefined;
      for (let pass = 0; pass < 2; pass++) {
        if (owner.has(url)) return 'owner';
        if (untrusted.has(url)) return 'untrusted';
        if (earlierRead) break;
        readEarlier();
      }
      return undefined;
    },
    tainted: () => sources.length > 0,
    sources: (): readonly string[] => sources,
  };
}

export type Seen = ReturnType<typeof createSeen>;

/** Text kept up to a bound, searched for exact substrings. */
function createText() {
  let text = '';
  return {
    add(piece: string): void {
      if (text.length < MAX_SEEN_CHARS) text += `\n${piece.slice(0, MAX_SEEN_CHARS - text.length)}`;
    },
    has: (needle: string) => text.includes(needle),
  };
}
