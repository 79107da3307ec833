import type { ChatMessage } from '../core/types.ts';

/**
 * When each user message was sent, as the model reads it: a first line
 * `[Sent: 2026-11-24 Tuesday 21:05 Europe/Berlin]` (ISO date, weekday, 24-hour time, zone);
 * and the time of the request itself, `[Now: …]`, in a system message at its end.
 *
 * The time travels with the messages, not at the start of the system prompt, so that the
 * system prompt and everything said before stay byte for byte the same from one request to
 * the next and a provider's prompt cache can serve them; a Sent line is made from the time
 * stored with its message, so a message reads the same in every later request.
 */
export function createSentStamps(timezone: string) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
  });
  /** Lines by minute: formatting costs about 35 µs, and every request stamps every turn. */
  const lines = new Map<number, string>();
  /** A bound on the minutes kept (about three days of a busy bot's turns). */
  const MAX_KEPT_MINUTES = 4_000;

  /** `2026-11-24 Tuesday 21:05 Europe/Berlin`: the local date, weekday, time and zone. */
  function local(at: number): string {
    const minute = Math.floor(at / 60_000);
    let kept = lines.get(minute);
    if (kept === undefined) {
      const parts = Object.fromEntries(
        format.formatToParts(at).map((p) => [p.type, p.value] as const),
      );
      kept = `${parts.year}-${parts.month}-${parts.day} ${parts.weekday} ${parts.hour}:${parts.minute} ${timezone}`;
      if (lines.size >= MAX_KEPT_MINUTES) lines.clear();
      lines.set(minute, kept);
    }
    return kept;
  }

  const line = (at: number): string => `[Sent: ${local(at)}]`;

  return {
    line,
    /**
     * The system prompt's last part: `[Now: 2026-11-24 Tuesday 21:05 Europe/Berlin]`, the
     * local date, weekday and time of the request at `at` (SPEC §3), as a system message
     * that goes after the conversation. Not stored: each request has its own, at its very
     * end, so the system prompt before the conversation holds no clock, and a request still
     * repeats the previous one up to the previous one's own last line (SPEC §14).
     */
    now: (at: number): ChatMessage => ({ role: 'system', content: `[Now: ${local(at)}]` }),
    /**
     * The history with the first user message of each turn stamped with its stored time
     * (the messages of one turn, a batch, become one message with one stamp).
     */
    stamp<M extends ChatMessage & { turnId?: string; createdAt?: number }>(messages: M[]): M[] {
      let turn: string | undefined;
      return messages.map((m) => {
        if (m.role !== 'user' || m.createdAt === undefined) return m;
        const first = m.turnId === undefined || m.turnId !== turn;
        turn = m.turnId;
        return first ? { ...m, content: `${line(m.createdAt)}\n${m.content}` } : m;
      });
    },
  };
}

export type SentStamps = ReturnType<typeof createSentStamps>;
