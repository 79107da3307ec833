import type { Database } from './sqlite.ts';

/**
 * Whether every one of the user messages stored under `sourceKeys` is in the core database
 * and was answered after it in its session (a final assistant message, one without tool
 * calls, follows it). A turn's answer is stored in the transaction that settles the turn's
 * messages, so a message still pending yet answered is one a crashed turn took in while it
 * ran (steering, SPEC §18) and the turn replayed after the restart answered.
 */
export function createAnsweredCheck(sqlite: Database): (sourceKeys: readonly string[]) => boolean {
  const count = sqlite.prepare<[string], { stored: number; answered: number | null }>(
    `SELECT COUNT(*) AS stored, SUM(EXISTS (
       SELECT 1 FROM messages a
       WHERE a.session_id = m.session_id AND a.id > m.id
         AND a.role = 'assistant' AND a.tool_calls IS NULL)) AS answered
     FROM messages m WHERE m.source_key IN (SELECT value FROM json_each(?))`,
  );
  return (sourceKeys) => {
    if (sourceKeys.length === 0) return false;
    const row = count.get(JSON.stringify(sourceKeys));
    return row !== undefined && row.stored === sourceKeys.length && row.answered === row.stored;
  };
}
