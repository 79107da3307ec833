import type { Database } from './sqlite.ts';

/**
 * Whether every one of the user messages stored under `sourceKeys` is in the core database
 * and was answered after it in its session (a final assistant message, one without tool
 * calls, follows it). A turn's answer is stored in the transaction that settles the turn's
 * messages, so a message still pending yet answered is one a crashed turn took in while it
 * ran (steering, SPEC §18) and the turn replayed after the restart answered.
 */
export function createAnsweredCheck(sqlite: Database): (sourceKeys: readonly string[]) => boolean {
  const answered = `SUM(EXISTS (
       SELECT 1 FROM messages a
       WHERE a.session_id = m.session_id AND a.id > m.id
         AND a.role = 'assistant' AND a.tool_calls IS NULL)) AS answered`;
  type Counts = { stored: number; answered: number | null };
  const count = sqlite.prepare<[string], Counts>(
    `SELECT COUNT(*) AS stored, ${answered}
     FROM messages m WHERE m.source_key IN (SELECT value FROM json_each(?))`,
  );
  // Most turns have one message: looked up by its key, without encoding a list for json_each.
  const countOne = sqlite.prepare<[string], Counts>(
    `SELECT COUNT(*) AS stored, ${answered} FROM messages m WHERE m.source_key = ?`,
  );
  return (sourceKeys) => {
    if (sourceKeys.length === 0) return false;
    const row =
      sourceKeys.length === 1
        ? countOne.get(sourceKeys[0]!)
        : count.get(JSON.stringify(sourceKeys));
    return row !== undefined && row.stored === sourceKeys.length && row.answered === row.stored;
  };
}

/**
 * Whether every one of the user messages under `sourceKeys` is stored in the core database
 * already: it reached a model in an earlier run (a turn that took it in by steering and
 * crashed), so its replay is no new prompt.
 */
export function createStoredCheck(sqlite: Database): (sourceKeys: readonly string[]) => boolean {
  const count = sqlite.prepare<[string], { stored: number }>(
    `SELECT COUNT(*) AS stored FROM messages WHERE source_key IN (SELECT value FROM json_each(?))`,
  );
  return (sourceKeys) =>
    sourceKeys.length > 0 && count.get(JSON.stringify(sourceKeys))?.stored === sourceKeys.length;
}
