import { describe, expect, it } from 'vitest';
import { createPairing, newCode, normalizeCode } from '../../src/inbound/pairing.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { createPairingRepo } from '../../src/store/pairing-repo.ts';
import { pairingText } from '../../src/telegram/gate.ts';
import { pairCommand } from '../../src/turn/pair-command.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { silentLog } from '../support/usage-seed.ts';

const temp = tempDirs('satchel-pairing-');

describe('pairing codes', () => {
  it('are 8 capital letters and digits without look-alikes, and the owner may type them loosely', () => {
    const codes = Array.from({ length: 500 }, newCode);
    for (const code of codes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    expect(new Set(codes).size).toBe(500);
    expect(normalizeCode(' abcd-2345 ')).toBe('ABCD2345');
  });

  it('draws again when a code is taken, and hides secret shapes in a stranger name', () => {
    const store = openCoreStore(temp());
    const drawn = ['AAAA2222', 'AAAA2222', 'BBBB3333'];
    const pairing = createPairing({
      repo: createPairingRepo(store.db),
      clock: new FakeClock(),
      log: silentLog,
      draw: () => drawn.shift()!,
    });
    const first = pairing.request({ platform: 'tg', userId: '1', chatId: '1' });
    const token = `123456789:${'A'.repeat(35)}`;
    const second = pairing.request({ platform: 'tg', userId: '2', chatId: '2', name: token });
    expect([first, second]).toMatchObject([{ code: 'AAAA2222' }, { code: 'BBBB3333' }]);
    expect(pairing.listing().pending.map((c) => c.name)).toEqual([
      null,
      expect.not.stringContaining(token),
    ]);
    store.close();
  });

  it('tells a stranger of a bot without an owner how its owner can let them in', () => {
    expect(pairingText('999', 'ABCD2345', false)).toContain('run npx satchel pair ABCD2345');
    expect(pairingText('999', 'ABCD2345', true)).not.toContain('npx satchel');
  });

  it('in a chat only the owner reaches (the terminal), /pair works and says when the user cannot be told from there', () => {
    const store = openCoreStore(temp());
    const pairing = createPairing({
      repo: createPairingRepo(store.db),
      clock: new FakeClock(),
      log: silentLog,
    });
    const issued = pairing.request({ platform: 'tg', userId: '7', chatId: '7' });
    const code = issued.kind === 'issued' ? issued.code : '';
    const deps = { pairing, owner: () => undefined, tell: () => false, timezone: 'UTC' };
    const event = {
      address: { platform: 'terminal', chatId: 'local' },
      chatType: 'private' as const,
      senderId: 'local',
      args: code,
    };
    expect(pairCommand(deps, event)).toMatchObject({
      text: 'Paired id 7: they can talk to me now. I cannot reach their chat from here: let them know yourself.',
    });
    store.close();
  });
});
