/**
 * The durable inboxes an edge's ingress is given (the store implements them): input is
 * written before it is handled and marked done in its reply's transaction, so a crash leaves
 * it to be handled again and nothing is handled twice. What is stored has anything shaped
 * like a secret redacted.
 */
export interface Inboxes {
  /** The inbox of one platform in `edge_inbox`, keyed by the edge's own strings. */
  keyed(platform: string): KeyedInbox;
  /**
   * `inbound_updates`: numbered updates (Telegram's update ids, older than `edge_inbox`);
   * a done row keeps no payload, and done rows are pruned.
   */
  numbered(): NumberedInbox;
}

export interface KeyedItem {
  key: string;
  payload: unknown;
  receivedAt: number;
}

export interface KeyedInbox {
  /** Stores an item; false when its key is stored already (it is not handled again). */
  record(item: KeyedItem): boolean;
  markDone(keys: readonly string[], now: number): void;
  /** Which of `keys` are marked done (as committed: read outside the marking transaction). */
  done(keys: readonly string[]): string[];
  /** Items not marked done that arrived at or after `since`, oldest first. */
  pending(since: number): KeyedItem[];
}

export interface NumberedItem {
  updateId: number;
  payload: unknown;
}

export interface NumberedInbox {
  /** Writes the updates in one transaction; returns those seen for the first time. */
  record(updates: NumberedItem[], now: number): NumberedItem[];
  /** Marks the updates done and drops their payloads. */
  markDone(updateIds: readonly number[], now: number): void;
  /** Updates not marked done that arrived after `since`, oldest first (`null`: no payload). */
  pending(since: number): NumberedItem[];
}
