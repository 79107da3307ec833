import { randomUUID } from 'node:crypto';
import { readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';

/** How often the folder is swept for spoken files that nothing will send any more. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface SpokenFilesDeps {
  /** SATCHEL_HOME/media/voice: a folder per day, a file per spoken answer. */
  dir: string;
  clock: Clock;
  log: Logger;
  /** The files that pending outbox rows name: they are still to be sent (after a restart too). */
  pending(): ReadonlySet<string>;
}

/**
 * The spoken answers on disk. A file lives only until its outbox row is sent (the channel
 * has the bytes by then: Telegram uploaded them, the web chat copied them); `remove` is told
 * so. What a stop, a refused send or a crash left behind goes in the sweep: on `sweep`, and
 * before a file is kept at most once an hour, every file no pending row names is deleted,
 * with the day folders it empties.
 */
export function createSpokenFiles(deps: SpokenFilesDeps) {
  const { dir, clock, log } = deps;
  let sweptAt = Number.NEGATIVE_INFINITY;

  function sweep(): void {
    sweptAt = clock.now();
    const keep = deps.pending();
    let removed = 0;
    try {
      for (const day of list(dir)) {
        const folder = path.join(dir, day);
        const files = list(folder);
        for (const name of files)
          if (!keep.has(path.join(folder, name))) {
            unlinkSync(path.join(folder, name));
            removed += 1;
          }
        if (files.every((name) => !keep.has(path.join(folder, name)))) rmdirSync(folder);
      }
    } catch (error) {
      log.warn({ event: 'voice_files_sweep_failed', err: error }, 'could not sweep spoken files');
    }
    if (removed > 0)
      log.info({ event: 'voice_files_pruned', files: removed }, 'spoken files removed');
  }

  return {
    sweep,

    /** Keeps `audio` where an outbox row can name it; returns its path. */
    keep(audio: Buffer): string {
      if (clock.now() - sweptAt >= SWEEP_EVERY_MS) sweep();
      const folder = path.join(dir, new Date(clock.now()).toISOString().slice(0, 10));
      makePrivateDir(folder);
      const file = path.join(folder, `${randomUUID()}.ogg`);
      writeFileSync(file, audio, { mode: PRIVATE_FILE });
      return file;
    },

    /** The file's row was sent: nothing reads it again. */
    remove(file: string): void {
      try {
        unlinkSync(file);
      } catch (error) {
        log.debug({ event: 'voice_file_remove_failed', err: error }, 'left for the sweep');
      }
    },
  };
}

export type SpokenFiles = ReturnType<typeof createSpokenFiles>;

/** The names in `folder`; none when it does not exist. */
function list(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
