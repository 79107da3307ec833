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
import { createMemoryChannel, type MemoryChannel } from '../fakes/memory-channel.ts';
import { silentLog } from '../support/usage-seed.ts';

const homes: string[] = [];
const stores: CoreStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function outboxesOver(store: CoreStore, channels: MemoryChannel[]) {
  return createOutboxes({
    channels,
    repo: createOutboxRepo(store.db),
    clock: systemClock,
    log: silentLog,
    redact: createRedactor([]),
  });
}

const tg: Address = { platform: 'tg', chatId: '1' };
const web: Address = { platform: 'web', chatId: '1' };
const text = (t: string) => ({ text: t, format: 'plain' as const });

describe('outboxes of several channels', () => {
  it('sends each row by the channel that wrote it, rows of this run and of an earlier one', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'satchel-outboxes-'));
    homes.push(home);
    const store = openCoreStore(home);
    stores.push(store);
    const telegram = createMemoryChannel({ platform: 'tg' });
    const browser = createMemoryChannel({ platform: 'web' });

    // An earlier run wrote rows and stopped before sending them.
    const earlier = outboxesOver(store, [telegram, browser]);
    const left = [
      ...earlier.write(tg, text('left for tg')),
      ...earlier.write(web, text('left for web')),
    ];
    earlier.close();

    const outboxes = outboxesOver(store, [telegram, browser]);
    const fresh = [...outboxes.write(web, text('web 1')), ...outboxes.write(tg, text('tg 1'))];
    expect(await outboxes.dispatch([...left, ...fresh])).toBe(true);
    await outboxes.idle();

    expect(telegram.transcript(tg)).toEqual(['left for tg', 'tg 1']);
    expect(browser.transcript(web)).toEqual(['left for web', 'web 1']);
    const statuses = store.sqlite.prepare('SELECT channel, status FROM outbox ORDER BY id').all();
    expect(statuses).toEqual([
      { channel: 'tg', status: 'sent' },
      { channel: 'web', status: 'sent' },
      { channel: 'web', status: 'sent' },
      { channel: 'tg', status: 'sent' },
    ]);
  });
});
