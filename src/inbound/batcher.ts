import type { Clock, TimerHandle } from '../core/clock.ts';
import { mergeOrigins } from '../core/origin.ts';
import { addressKey, type InboundEvent } from '../core/types.ts';

/** How long a batch may stay open in total, in windows. */
const MAX_WINDOWS = 4;
/**
 * The quiet window of an album. Telegram delivers an album as one update per photo, close
 * together; they are gathered even when text batching is off.
 */
export const ALBUM_WINDOW_MS = 800;

type Album = Extract<InboundEvent, { kind: 'album' }>;

/** What an open batch gathers: texts, one album's photos, or documents sent together. */
type Gathering = 'texts' | 'files' | { album: string };

interface OpenBatch {
  /** Texts, the one album being gathered, or documents. */
  events: InboundEvent[];
  gathering: Gathering;
  windowMs: number;
  deadline: number;
  timer: TimerHandle;
}

/**
 * Adaptive batching. Texts of one conversation that arrive within `windowMs` of each other
 * are emitted together; each text restarts the window, but a batch never stays open longer
 * than 4 windows. The photos of an album are gathered the same way into one event, and
 * documents sent together (a selection of files arrives as one update each) into one turn,
 * both over the album window even with text batching off. An edit of a text still in the
 * batch replaces it. Anything else first flushes the conversation's open batch, so order is
 * kept. `windowMs` 0 emits every text at once.
 */
export function createBatcher(options: {
  windowMs: number;
  clock: Clock;
  emit: (events: InboundEvent[]) => void;
  albumWindowMs?: number;
}) {
  const { windowMs, clock, emit } = options;
  const albumWindowMs = Math.max(windowMs, options.albumWindowMs ?? ALBUM_WINDOW_MS);
  const open = new Map<string, OpenBatch>();

  const flush = (key: string) => {
    const batch = open.get(key);
    if (!batch) return;
    clock.clearTimeout(batch.timer);
    open.delete(key);
    emit(batch.events);
  };

  const arm = (key: string, batch: OpenBatch) => {
    clock.clearTimeout(batch.timer);
    const wait = Math.max(0, Math.min(batch.windowMs, batch.deadline - clock.now()));
    batch.timer = clock.setTimeout(() => flush(key), wait);
  };

  const start = (key: string, event: InboundEvent, window: number, gathering: Gathering) => {
    const batch: OpenBatch = {
      events: [event],
      gathering,
      windowMs: window,
      deadline: clock.now() + MAX_WINDOWS * window,
      timer: clock.setTimeout(() => flush(key), window),
    };
    open.set(key, batch);
  };

  /** Adds `event` to the open batch when it gathers the same, else starts a new one. */
  function pushGathered(key: string, event: InboundEvent, gathering: 'texts' | 'files'): void {
    const batch = open.get(key);
    if (batch?.gathering === gathering) {
      batch.events.push(event);
      arm(key, batch);
      return;
    }
    flush(key);
    start(key, event, gathering === 'texts' ? windowMs : albumWindowMs, gathering);
  }

  function pushAlbum(key: string, event: Album): void {
    const batch = open.get(key);
    const same = typeof batch?.gathering === 'object' && batch.gathering.album === event.groupId;
    const gathered = same ? (batch!.events[0] as Album) : undefined;
    if (!batch || !gathered) {
      flush(key);
      start(key, event, albumWindowMs, { album: event.groupId });
      return;
    }
    batch.events[0] = {
      ...gathered,
      origin: mergeOrigins(gathered.origin, event.origin),
      photos: [...gathered.photos, ...event.photos],
      caption: gathered.caption || event.caption,
    };
    arm(key, batch);
  }

  /** An edit of a text still waiting replaces it; true when it did. */
  function replaceWaiting(key: string, edit: Extract<InboundEvent, { kind: 'edited' }>): boolean {
    const batch = open.get(key);
    const at = batch?.events.findIndex((e) => e.kind === 'text' && e.messageId === edit.messageId);
    if (!batch || at === undefined || at < 0) return false;
    const original = batch.events[at]!;
    batch.events[at] = {
      ...original,
      kind: 'text',
      text: edit.text,
      origin: mergeOrigins(original.origin, edit.origin),
    };
    return true;
  }

  return {
    push(event: InboundEvent): void {
      const key = addressKey(event.address);
      if (event.kind === 'album') pushAlbum(key, event);
      else if (event.kind === 'edited' && replaceWaiting(key, event)) return;
      else if (event.kind === 'text' && windowMs > 0) pushGathered(key, event, 'texts');
      else if (event.kind === 'document') pushGathered(key, event, 'files');
      else {
        flush(key);
        emit([event]);
      }
    },

    /** Whether a conversation has an open batch (a steered text must not overtake it). */
    holds: (key: string): boolean => open.has(key),

    /** Takes a conversation's open batch away unsent (/stop drops it). */
    take(key: string): InboundEvent[] {
      const batch = open.get(key);
      if (!batch) return [];
      clock.clearTimeout(batch.timer);
      open.delete(key);
      return batch.events;
    },

    /** Drops every open batch (shutdown): their updates stay pending and are replayed. */
    close(): void {
      for (const batch of open.values()) clock.clearTimeout(batch.timer);
      open.clear();
    },
  };
}

export type Batcher = ReturnType<typeof createBatcher>;
