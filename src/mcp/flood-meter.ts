import type { Clock, TimerHandle } from '../core/clock.ts';

/** What a server can flood satchel with: each is metered on its own. */
export type FloodKind = 'stderr' | 'stdout_junk' | 'notifications';

/** How much of each kind satchel reads from one server per second, and for how long. */
export interface FloodLimits {
  /** Bytes of stderr per second (only its last 4 KB is kept anyway). */
  stderrBytes: number;
  /** Lines on stdout that are not JSON-RPC messages, per second. */
  junkLines: number;
  /** Notifications per second (progress, log messages, list changes…). */
  notifications: number;
  /** Seconds in a row at a limit before the server counts as flooding and is stopped. */
  seconds: number;
}

/**
 * Far above what a working server writes (a debug log, progress of a long call), far below
 * what a loop writing as fast as it can reaches: such a loop used to take a whole core.
 */
export const DEFAULT_FLOOD_LIMITS: FloodLimits = {
  stderrBytes: 1024 * 1024,
  junkLines: 100,
  notifications: 200,
  seconds: 5,
};

/** A server that stayed at a limit for `seconds` in a row: what the one log line says. */
export interface Flood {
  kind: FloodKind;
  /** What satchel read per second over those seconds (reading was held at the limit). */
  perSecond: number;
  limit: number;
  seconds: number;
}

export interface FloodMeterHooks {
  /** Stop reading the stream this kind comes on until `resume` (the next second). */
  pause(kind: FloodKind): void;
  resume(kind: FloodKind): void;
  /** At a limit for `seconds` in a row: the meter stops; the server is to be stopped. */
  flooding(flood: Flood): void;
}

interface Gauge {
  /** The clock's second this count is of. */
  second: number;
  count: number;
  /** Whether `count` reached the limit this second (reading is paused until the next). */
  full: boolean;
  /** Seconds in a row, this one included, that were full, and what they counted. */
  streak: number;
  streakCount: number;
  timer: TimerHandle | undefined;
}

/**
 * The throttle between a server's pipes and satchel's CPU. Each kind has a budget per clock
 * second: once a second's budget is spent, reading that stream pauses until the next second
 * (the server then blocks on a full pipe, and satchel does no work for it), so what satchel
 * does for a server is bounded whatever it writes. A server that spends its budget `seconds`
 * seconds in a row is flooding: reported once, and the meter stops.
 */
export function createFloodMeter(limits: FloodLimits, clock: Clock, hooks: FloodMeterHooks) {
  const limitOf: Record<FloodKind, number> = {
    stderr: limits.stderrBytes,
    stdout_junk: limits.junkLines,
    notifications: limits.notifications,
  };
  const gauges = new Map<FloodKind, Gauge>();
  let stopped = false;

  function gaugeFor(kind: FloodKind, second: number): Gauge {
    let gauge = gauges.get(kind);
    if (!gauge) {
      gauge = { second, count: 0, full: false, streak: 0, streakCount: 0, timer: undefined };
      gauges.set(kind, gauge);
    } else if (gauge.second !== second) {
      // A streak goes on only from a full second to the one right after it.
      if (!(gauge.full && second === gauge.second + 1)) {
        gauge.streak = 0;
        gauge.streakCount = 0;
      }
      gauge.second = second;
      gauge.count = 0;
      gauge.full = false;
    }
    return gauge;
  }

  function stop(): void {
    stopped = true;
    for (const gauge of gauges.values()) if (gauge.timer) clock.clearTimeout(gauge.timer);
  }

  return {
    /** `amount` more of `kind` was read (bytes of stderr, one line, one notification). */
    add(kind: FloodKind, amount: number): void {
      if (stopped) return;
      const now = clock.now();
      const gauge = gaugeFor(kind, Math.floor(now / 1000));
      gauge.count += amount;
      const limit = limitOf[kind];
      if (gauge.full || gauge.count < limit) return;
      gauge.full = true;
      gauge.streak++;
      gauge.streakCount += gauge.count;
      if (gauge.streak >= limits.seconds) {
        stop();
        const perSecond = Math.round(gauge.streakCount / gauge.streak);
        hooks.flooding({ kind, perSecond, limit, seconds: gauge.streak });
        return;
      }
      hooks.pause(kind);
      gauge.timer = clock.setTimeout(
        () => {
          gauge.timer = undefined;
          if (!stopped) hooks.resume(kind);
        },
        (gauge.second + 1) * 1000 - now,
      );
    },
    /** The connection is closing: no more pauses, resumes or reports. */
    stop,
  };
}

export type FloodMeter = ReturnType<typeof createFloodMeter>;

const UNITS: Record<FloodKind, string> = {
  stderr: 'bytes of stderr',
  stdout_junk: 'non-JSON lines on stdout',
  notifications: 'notifications',
};

/** What a reason says about a flood. */
export function describeFlood(flood: Flood): string {
  return `${flood.perSecond} ${UNITS[flood.kind]} a second for ${flood.seconds} s, over its limit of ${flood.limit}`;
}

/** Why a start was cut short: the server flooded satchel meanwhile. */
export class ServerFlooded extends Error {}
