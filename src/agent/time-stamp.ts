import type { ChatMessage } from '../core/types.ts';

/**
 * When each user message was sent, as the model reads it: a first line
 * `[Sent: 2026-11-24 Tuesday 21:05 Europe/Berlin]` (ISO date, weekday, 24-hour time, zone).
 *
 * The time travels with the messages, not in the system prompt, so that the system prompt
 * and everything said before stay byte for byte the same from one request to the next and
 * a provider's prompt cache can serve them; and it is made from the time stored with each
 * message, so a message reads the same in every later request.
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

  function line(at: number): string {
    const minute = Math.floor(at / 60_000);
    let kept = lines.get(minute);
    if (kept === undefined) {
      const parts = Object.fromEntries(
        format.formatToParts(at).map((p) => [p.type, p.value] as const),
      );
      kept = `[Sent: ${parts.year}-${parts.month}-${parts.day} ${parts.weekday} ${parts.hour}:${parts.minute} ${timezone}]`;
      if (lines.size >= MAX_KEPT_MINUTES) lines.clear();
      lines.set(minute, kept);
    }
    return kept;
  }

  return {
    line,
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
