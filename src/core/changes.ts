/**
 * What a turn changed in what satchel keeps (SPEC §18 "Receipts"), as the tool or stage
 * that made the change reports it: never read from the model's words. The turn gathers
 * them and ends its answer with one line that says so (turn/receipt.ts).
 */
export type Change =
  /** The pack's USER.md or MEMORY.md was appended to or replaced. */
  | { kind: 'memory'; file: 'USER.md' | 'MEMORY.md' }
  /** `db_write` changed `count` rows (0 when its where matched nothing). */
  | { kind: 'rows'; action: 'insert' | 'update' | 'delete'; count: number }
  /** A scheduled job was created, paused, resumed or removed; `at` is a new job's next run. */
  | {
      kind: 'job';
      action: 'created' | 'paused' | 'resumed' | 'removed';
      once?: boolean;
      at?: number | null;
    }
  /** A file was saved in the pack's workspace (`name` as saved, under files/). */
  | { kind: 'file'; name: string };

/** A tool's result for the model, with the change it made next to it. */
export interface Changed {
  text: string;
  change: Change;
}

export const changed = (text: string, change: Change): Changed => ({ text, change });
