/**
 * Which packs are bound to a conversation (SPEC §8): every pack that answered there — the
 * active one and those active before, or whose skill command ran there — so their jobs keep
 * running there whatever pack is active now.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Address } from '../../src/core/types.ts';
import { createRouter } from '../../src/routing/router.ts';
import { createSessionRepo } from '../../src/store/session-repo.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { silentLog, tempCoreStore } from '../support/usage-seed.ts';

let env: ReturnType<typeof tempCoreStore>;
afterEach(() => env?.close());

const CHAT: Address = { platform: 'tg', chatId: '7' };
const TOPIC: Address = { platform: 'tg', chatId: '-100', threadId: '5' };

function routerOn(installed: string[]) {
  env = tempCoreStore();
  const sessions = createSessionRepo(env.store.db);
  const bound: string[] = [];
  const pack = (name: string) => ({ name, displayName: name.toUpperCase() });
  const router = createRouter({
    sessions,
    packs: {
      list: () => installed.map(pack) as never,
      get: (name: string) => (installed.includes(name) ? (pack(name) as never) : undefined),
      byLabel: () => undefined,
    },
    clock: new FakeClock(1_000),
    log: silentLog,
    onBound: (address, name) => bound.push(`${address.chatId}:${name}`),
  });
  const packsOf = (chatId: string, threadId: string | null = null) =>
    router
      .boundConversations()
      .filter((c) => c.chatId === chatId && c.threadId === threadId)
      .map((c) => c.pack)
      .sort();
  return { router, sessions, bound, packsOf };
}

describe('packs bound to a conversation', () => {
  it('a pack stays bound after a switch and after /new', () => {
    const { router, packsOf } = routerOn(['alpha', 'beta']);
    router.resolve(CHAT, 'alpha');
    expect(packsOf('7')).toEqual(['alpha']);
    router.resolve(CHAT, 'beta');
    expect(packsOf('7')).toEqual(['alpha', 'beta']);
    router.fresh(CHAT, 'beta');
    expect(packsOf('7')).toEqual(['alpha', 'beta']);
    expect(router.boundPack(CHAT)).toBe('beta');
  });

  it('a topic renamed away from its pack keeps it bound', () => {
    const { router, packsOf } = routerOn(['alpha']);
    router.resolve(TOPIC, 'alpha');
    router.unbind(TOPIC);
    expect(router.boundPack(TOPIC)).toBeUndefined();
    expect(packsOf('-100', '5')).toEqual(['alpha']);
  });

  it('a pack whose skill command ran here is bound, and the scheduler is told once; the active pack stays', () => {
    const { router, bound, packsOf } = routerOn(['alpha', 'beta']);
    router.resolve(CHAT, 'alpha');
    router.visit(CHAT, 'beta');
    router.visit(CHAT, 'beta');
    expect(packsOf('7')).toEqual(['alpha', 'beta']);
    expect(bound).toEqual(['7:alpha', '7:beta']);
    expect(router.boundPack(CHAT)).toBe('alpha');
  });

  it("lists no pack that is not installed, and no pack of a job's own session", () => {
    const { router, sessions, packsOf } = routerOn(['alpha', 'beta']);
    router.resolve(CHAT, 'alpha');
    router.visit(CHAT, 'gone');
    sessions.jobSession('tg:7:job:j1', 'beta', CHAT, 1);
    expect(packsOf('7')).toEqual(['alpha']);
  });
});
