import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createInboxRepo, type InboxRepo } from '../../src/store/inbox-repo.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-inbox-');
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const HOUR = 3_600_000;

let core: CoreStore;
let inbox: InboxRepo;

beforeEach(() => {
  core = openCoreStore(tempDir());
  inbox = createInboxRepo(core.db, { keepDoneMs: 24 * HOUR, keepRows: 5 });
});
afterEach(() => core.close());

const update = (updateId: number) => ({ updateId, payload: { update_id: updateId, n: 'x' } });
const rows = () =>
  core.sqlite
    .prepare('SELECT update_id AS id, status, payload FROM inbound_updates ORDER BY update_id')
    .all() as { id: number; status: string; payload: string }[];

describe('the durable inbox', () => {
  it('drops the payload of a row marked done, one or several at a time', () => {
    inbox.record([update(1), update(2), update(3)], T0);
    inbox.markDone([1], T0);
    inbox.markDone([2, 3], T0);
    expect(rows().map((r) => r.payload)).toEqual(['', '', '']);
    // Done rows still stop a repeated delivery.
    expect(inbox.record([update(2)], T0)).toEqual([]);
  });

  it('prunes done rows received more than a day ago, never a pending one', () => {
    inbox.record([update(1), update(2)], T0);
    inbox.markDone([1], T0);
    // Within a day the done row stays, and its update id is still refused.
    expect(inbox.record([update(1), update(3)], T0 + 23 * HOUR)).toEqual([update(3)]);
    inbox.markDone([3], T0 + 23 * HOUR);
    inbox.record([update(4)], T0 + 25 * HOUR);
    expect(rows().map((r) => [r.id, r.status])).toEqual([
      [2, 'pending'],
      [3, 'done'],
      [4, 'pending'],
    ]);
  });

  it('keeps at most the newest rows when a flood comes within a day', () => {
    for (let id = 1; id <= 12; id++) {
      inbox.record([update(id)], T0 + id);
      if (id !== 4) inbox.markDone([id], T0 + id);
    }
    // The next write ten minutes on prunes: done rows below the 5 newest go; 4 is pending.
    inbox.record([update(13)], T0 + HOUR);
    expect(rows().map((r) => r.id)).toEqual([4, 9, 10, 11, 12, 13]);
    // The newest update ids are still recognised as duplicates.
    expect(inbox.record([update(12)], T0 + HOUR)).toEqual([]);
  });

  it('stores an update nested too deep as done without payload, and still hands it on', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { x: deep };
    const fresh = inbox.record([{ updateId: 7, payload: { update_id: 7, message: deep } }], T0);
    expect(fresh.map((u) => u.updateId)).toEqual([7]);
    expect(rows()).toEqual([{ id: 7, status: 'done', payload: '' }]);
    expect(inbox.pending(0)).toEqual([]);
  });

  it('replays a pending row without payload as null (the consumer settles it)', () => {
    core.sqlite
      .prepare('INSERT INTO inbound_updates (update_id, payload, received_at) VALUES (9, ?, ?)')
      .run('', T0);
    expect(inbox.pending(0)).toEqual([{ updateId: 9, payload: null }]);
  });
});
