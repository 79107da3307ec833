import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/core/types.ts';
import { storeInboxes } from '../../src/core-app/edges.ts';
import { createPairing } from '../../src/inbound/pairing.ts';
import { sessionKey } from '../../src/routing/router.ts';
import { openCoreStore } from '../../src/store/client.ts';
import { createPairingRepo } from '../../src/store/pairing-repo.ts';
import { createWebConversationRepo } from '../../src/store/web-conversation-repo.ts';
import { type TelegramConfig, telegramEdge } from '../../src/telegram/edge.ts';
import { idIn, idOut } from '../../src/telegram/ids.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs('satchel-ids-');

describe('ids in the core', () => {
  it('keys an address by its ids as they are, and no id can pass for a chat and its thread', () => {
    expect(addressKey({ platform: 'tg', chatId: '-1001234567890', threadId: '7' })).toBe(
      'tg:-1001234567890:7',
    );
    expect(sessionKey({ platform: 'slack', chatId: 'C024BE91L' }, 'alpha')).toBe(
      'slack:C024BE91L:alpha',
    );
    const room = addressKey({ platform: 'mx', chatId: '!room:matrix.org' });
    const threaded = addressKey({ platform: 'mx', chatId: '!room', threadId: 'matrix.org' });
    expect(room).toBe('mx:!room%3Amatrix.org');
    expect(room).not.toBe(threaded);
    expect(addressKey({ platform: 'mx', chatId: 'a%3Ab' })).not.toBe(
      addressKey({ platform: 'mx', chatId: 'a:b' }),
    );
  });
});

describe("Telegram's ids, at its edge", () => {
  it('crosses as the same digits, negative group ids too', () => {
    expect(idIn(-1001234567890)).toBe('-1001234567890');
    expect(idOut('-1001234567890')).toBe(-1001234567890);
    expect(idOut(idIn(2 ** 52))).toBe(2 ** 52);
  });

  it("says a chat's kind from its own ids (a job's run asks it), and names its owner", () => {
    const store = openCoreStore(temp());
    const factory = telegramEdge({
      telegram: {
        token: '123:abc',
        apiRoot: 'http://127.0.0.1:9',
        webhook: undefined,
        localFiles: false,
        allowedUserIds: ['111', '222'],
        owner: '111',
        pairing: false,
      },
      groupReply: 'mention',
    } satisfies TelegramConfig);
    const clock = new FakeClock();
    const edge = factory.connect({
      log: silent,
      clock,
      inboxes: storeInboxes(store.db),
      conversations: createWebConversationRepo(store.db),
      pairing: createPairing({ repo: createPairingRepo(store.db), clock, log: silent }),
    });
    expect(edge.chatType?.({ platform: 'tg', chatId: '111' })).toBe('private');
    expect(edge.chatType?.({ platform: 'tg', chatId: '-1001234567890' })).toBe('supergroup');
    expect(edge.owner).toBe('111');
    store.close();
  });
});

const silent = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silent,
};
