import type { Change } from '../core/changes.ts';
import { escapeMarkdown } from '../outbound/compose.ts';
import { formatLocal } from '../time/local-time.ts';

/** Files named one by one up to this many; more are counted. */
const NAMED_FILES = 2;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The receipt line (SPEC §18): what a turn's tools and inputs changed in what satchel keeps,
 * in Markdown, `✓ memory updated · 2 rows saved · reminder set for today 18:00`; '' when
 * nothing changed (a write that matched no row changed nothing). Parts come in a fixed
 * order (memory, rows, jobs, files) so the same changes always read the same; times are
 * read in `timezone`, relative to `now`.
 */
export function receiptLine(changes: readonly Change[], timezone: string, now: number): string {
  const parts = [
    ...memoryPart(changes),
    ...rowParts(changes),
    ...jobParts(changes, timezone, now),
    ...fileParts(changes),
  ];
  return parts.length === 0 ? '' : `✓ ${parts.join(' · ')}`;
}

function memoryPart(changes: readonly Change[]): string[] {
  return changes.some((c) => c.kind === 'memory') ? ['memory updated'] : [];
}

const ROW_WORDS = { insert: 'saved', update: 'updated', delete: 'deleted' } as const;

function rowParts(changes: readonly Change[]): string[] {
  return (['insert', 'update', 'delete'] as const).flatMap((action) => {
    const count = changes.reduce(
      (n, c) => (c.kind === 'rows' && c.action === action ? n + c.count : n),
      0,
    );
    return count > 0 ? [`${plural(count, 'row')} ${ROW_WORDS[action]}`] : [];
  });
}

/** A one-shot is a reminder with its time; other job changes are counted by what happened. */
function jobParts(changes: readonly Change[], timezone: string, now: number): string[] {
  const jobs = changes.flatMap((c) => (c.kind === 'job' ? [c] : []));
  const reminders = jobs
    .filter((j) => j.action === 'created' && j.once)
    .map((j) =>
      j.at === undefined || j.at === null
        ? 'reminder set'
        : `reminder set for ${formatLocal(j.at, timezone, now)}`,
    );
  const counted = (action: 'created' | 'paused' | 'resumed' | 'removed', word: string) => {
    const n = jobs.filter((j) => j.action === action && !(action === 'created' && j.once)).length;
    return n > 0 ? [`${plural(n, 'job')} ${word}`] : [];
  };
  return [
    ...reminders,
    ...counted('created', 'scheduled'),
    ...counted('paused', 'paused'),
    ...counted('resumed', 'resumed'),
    ...counted('removed', 'removed'),
  ];
}

function fileParts(changes: readonly Change[]): string[] {
  const names = changes.flatMap((c) => (c.kind === 'file' ? [c.name] : []));
  if (names.length === 0) return [];
  if (names.length > NAMED_FILES) return [`${names.length} files saved`];
  return names.map((name) => `${escapeMarkdown(name)} saved`);
}
