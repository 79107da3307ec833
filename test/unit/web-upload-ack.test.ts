import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CoreStore, openCoreStore, transactionOf } from '../../src/store/client.ts';
import { createEdgeInboxRepo } from '../../src/store/edge-inbox-repo.ts';
import { acknowledgeUploads, createPendingUploads } from '../../src/web/pending-uploads.ts';
import { createUploadStore } from '../../src/web/uploads.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-upload-ack-');
const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

let home: string;
let core: CoreStore;
beforeEach(() => {
  home = tempDir();
  core = openCoreStore(home);
});
afterEach(() => core.close());

/** A document sent in conversation `w-c1` and its input `key`, waiting for an answer. */
function waitingDocument(key: string) {
  const uploads = createUploadStore(home);
  const pending = createPendingUploads(uploads);
  const inbox = createEdgeInboxRepo(core.db, 'web');
  const id = uploads.keep('w-c1', Buffer.from('%PDF-1.7 plan'), '.pdf');
  inbox.record({ key, payload: { text: 'read this', files: [id] }, receivedAt: NOW });
  pending.hold(key, [id]);
  const file = path.join(home, 'media', 'web', 'w-c1', id.slice('w-c1_'.length));
  expect(existsSync(file)).toBe(true);
  return { acknowledge: acknowledgeUploads(inbox, pending), pending, inbox, file };
}

describe("the web chat's acknowledgement of an answered upload", () => {
  it('removes the document once the reply’s transaction has committed', async () => {
    const { acknowledge, pending, file } = waitingDocument('k1');
    transactionOf(core.db)(() => acknowledge(['k1'], NOW));
    await nextTask();
    expect(existsSync(file)).toBe(false);
    expect(pending.bytes()).toBe(0);
  });

  it('keeps it, still waiting, when that transaction fails after marking it done', async () => {
    const { acknowledge, pending, inbox, file } = waitingDocument('k2');
    expect(() =>
      transactionOf(core.db)(() => {
        acknowledge(['k2'], NOW);
        throw new Error('the reply could not be stored');
      }),
    ).toThrow('could not be stored');
    await nextTask();
    // The input is replayed with its file: nothing of it is gone.
    expect(inbox.pending(0).map((item) => item.key)).toEqual(['k2']);
    expect(existsSync(file)).toBe(true);
    expect(pending.bytes()).toBeGreaterThan(0);
  });

  it('leaves the file, and throws nothing, when shutdown closed the database before that task', async () => {
    const { acknowledge, pending, file } = waitingDocument('k3');
    transactionOf(core.db)(() => acknowledge(['k3'], NOW));
    core.close();
    await nextTask();
    expect(existsSync(file)).toBe(true);
    expect(pending.bytes()).toBeGreaterThan(0);
  });
});
