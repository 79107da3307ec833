import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { type Address, addressKey } from '../core/types.ts';
import type { Db } from './client.ts';
import { jobs } from './schema.ts';

/** One manifest `cron` entry placed in one conversation bound to its pack. */
export interface ManifestJob {
  pack: string;
  cronId: string;
  to: Address;
  schedule: string;
  skill: string;
  enabled: boolean;
  /** The entry's own chat model (`provider:model`), null to answer as the chat does. */
  model?: string | null;
}

/** `<pack>:<cronId>:<address key>`: one row per manifest entry per conversation. */
export const manifestKey = (job: Pick<ManifestJob, 'pack' | 'cronId' | 'to'>) =>
  `${job.pack}:${job.cronId}:${addressKey(job.to)}`;

/**
 * Makes the manifest jobs exactly `wanted`, in one transaction: a new entry or conversation
 * gets a row (its `enabled` from the manifest), a changed schedule, skill or model is updated (a
 * running job keeps its claim; its next time is computed when the run is acknowledged), and
 * a row no longer wanted is removed: its entry left the manifest, or its pack is no longer
 * installed. (A pack stays bound to a conversation when another becomes active there, so a
 * switch removes nothing.) A pause or resume by the user is kept. Tool jobs are
 * not touched. `nextTick` gives a schedule's next time. With `platforms`, only those channels'
 * manifest jobs are made and removed (`wanted` holds their conversations only).
 */
export function syncManifestJobs(
  db: Db,
  wanted: readonly ManifestJob[],
  nextTick: (schedule: string) => number | null,
  now: number,
  platforms?: readonly string[],
) {
  const counts = { added: 0, updated: 0, removed: 0 };
  const mine = platforms === undefined ? undefined : inArray(jobs.platform, [...platforms]);
  db.transaction((tx) => {
    const existing = tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.source, 'manifest'), mine))
      .all();
    const byKey = new Map(existing.map((row) => [row.manifestKey, row]));
    const keep = new Set<string>();
    for (const entry of wanted) {
      const key = manifestKey(entry);
      if (keep.has(key)) continue;
      keep.add(key);
      const row = byKey.get(key);
      if (!row) {
        tx.insert(jobs)
          .values({
            id: randomUUID().slice(0, 8),
            pack: entry.pack,
            source: 'manifest',
            kind: 'cron',
            manifestKey: key,
            platform: entry.to.platform,
            chatId: entry.to.chatId,
            threadId: entry.to.threadId ?? null,
            schedule: entry.schedule,
            skill: entry.skill,
            enabled: entry.enabled,
            model: entry.model ?? null,
            nextRunAt: nextTick(entry.schedule),
            createdAt: now,
          })
          .run();
        counts.added++;
      } else if (
        row.schedule !== entry.schedule ||
        row.skill !== entry.skill ||
        row.model !== (entry.model ?? null)
      ) {
        const running = row.runningDueAt !== null;
        tx.update(jobs)
          .set({
            schedule: entry.schedule,
            skill: entry.skill,
            model: entry.model ?? null,
            ...(running ? {} : { nextRunAt: nextTick(entry.schedule) }),
          })
          .where(eq(jobs.id, row.id))
          .run();
        counts.updated++;
      }
    }
    for (const row of existing)
      if (row.manifestKey === null || !keep.has(row.manifestKey)) {
        tx.delete(jobs).where(eq(jobs.id, row.id)).run();
        counts.removed++;
      }
  });
  return counts;
}
