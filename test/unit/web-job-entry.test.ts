/**
 * A scheduled job's answer reaches the web chat marked as one (`job`: its pack) on the entry
 * the pages get and in the snapshot a reload gets, from the outbox row's `job_pack`: also
 * when an earlier run wrote the row and this one sends it. An answer to the owner is not
 * marked. (The page notifies only of marked entries: test/e2e/web-notify-browser.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { createRedactor } from '../../src/core/redact.ts';
import type { Address } from '../../src/core/types.ts';
import { createOutboxes } from '../../src/outbound/outboxes.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createOutboxRepo } from '../../src/store/outbox-repo.ts';
import { createWebChannel, type WebChannel } from '../../src/web/channel.ts';
import type { ChatUpdate } from '../../src/web/transcript.ts';
import { silentLog } from '../support/usage-seed.ts';

const homes: string[] = [];
const stores: CoreStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

const to: Address = { platform: 'web', chatId: 'w-fern' };

function outboxesOver(store: CoreStore, channel: WebChannel) {
  return createOutboxes({
    channels: [channel],
    repo: createOutboxRepo(store.db),
    clock: systemClock,
    log: silentLog,
    redact: createRedactor([]),
  });
}

describe("a job's message in the web chat", () => {
  it('is marked with its pack, live and in the snapshot, also when a restart sends it', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'satchel-web-job-'));
    homes.push(home);
    const store = openCoreStore(home);
    stores.push(store);

    // An earlier run wrote a job's answer and stopped before sending it.
    const earlier = outboxesOver(store, createWebChannel(Date.now));
    const left = earlier.write(to, { text: 'Time to **water** the fern!', format: 'markdown' });
    earlier.markJob(left, 'alpha');
    earlier.close();

    const channel = createWebChannel(Date.now);
    const live: ChatUpdate[] = [];
    channel.conversation(to).subscribe((update) => live.push(update));
    const outboxes = outboxesOver(store, channel);
    const answer = outboxes.write(to, { text: 'Ferns like shade.', format: 'markdown' });
    expect(await outboxes.dispatch([...left, ...answer])).toBe(true);
    await outboxes.idle();

    const marks = (entries: { kind: string }[]) => entries.map((e) => ('job' in e ? e.job : null));
    const added = live.flatMap((u) => (u.type === 'entry' ? [u.entry] : []));
    expect(marks(added)).toEqual(['alpha', null]);
    expect(marks(channel.conversation(to).snapshot().entries)).toEqual(['alpha', null]);
    expect(added[0]).toMatchObject({ kind: 'bot', html: 'Time to <b>water</b> the fern!' });
  });

  it('keeps its mark when an edit replaces it', async () => {
    const channel = createWebChannel(Date.now);
    const sent = await channel.sendText(to, 'Water the fern.', { formatted: false, job: 'alpha' });
    await channel.editText!(to, sent.messageId, 'Water the fern today.', { formatted: false });
    expect(channel.conversation(to).snapshot().entries).toMatchObject([
      { kind: 'bot', text: 'Water the fern today.', job: 'alpha' },
    ]);
  });
});
