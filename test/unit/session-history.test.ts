import { afterEach, describe, expect, it } from 'vitest';
import { openCoreStore } from '../../src/store/client.ts';
import { createSessionRepo, type NewMessage } from '../../src/store/session-repo.ts';
import { tempCoreStore } from '../support/usage-seed.ts';

let env: ReturnType<typeof tempCoreStore>;
afterEach(() => env?.close());

const ADDRESS = { platform: 'tg', chatId: '7' } as const;

function opened() {
  env = tempCoreStore();
  const repo = createSessionRepo(env.store.db);
  const session = repo.createSession({ key: 'tg:7', pack: 'journal', address: ADDRESS }, 1);
  const say = (r: typeof repo, turn: number, role: NewMessage['role'], content: string) =>
    r.addMessage({ sessionId: session.id, turnId: `t${turn}`, role, content }, turn);
  return { repo, session, say };
}

describe('session history', () => {
  it('read again, has the messages added since, in order, as a fresh read has them', () => {
    const { repo, session, say } = opened();
    say(repo, 1, 'user', 'plant basil?');
    say(repo, 1, 'assistant', 'In May.');
    expect(repo.history(session.id).map((m) => m.content)).toEqual(['plant basil?', 'In May.']);

    say(repo, 2, 'user', 'and tomatoes?');
    const other = openCoreStore(env.home);
    try {
      // Another process (satchel chat, a second instance) writes to the same database.
      say(createSessionRepo(other.db), 2, 'assistant', 'After the frosts.');
    } finally {
      other.close();
    }
    const again = repo.history(session.id);
    expect(again.map((m) => m.content)).toEqual([
      'plant basil?',
      'In May.',
      'and tomatoes?',
      'After the frosts.',
    ]);
    expect(again).toEqual(createSessionRepo(env.store.db).history(session.id));
  });

  it('starts after a summary when asked to, and hands out messages no reader can change', () => {
    const { repo, session, say } = opened();
    for (let turn = 1; turn <= 3; turn++) say(repo, turn, 'user', `message ${turn}`);
    const all = repo.history(session.id);
    const later = repo.history(session.id, all[0]!.id);
    expect(later.map((m) => m.content)).toEqual(['message 2', 'message 3']);
    expect(repo.history(session.id).map((m) => m.content)).toHaveLength(3);
    expect(() => {
      (all[0] as { content: string }).content = 'changed';
    }).toThrow(TypeError);
    all.pop();
    expect(repo.history(session.id)).toHaveLength(3);
  });
});

describe('conversation routes', () => {
  it('read one written here at once, and one another process wrote from the next task on', async () => {
    const { repo, session } = opened();
    expect(repo.route(ADDRESS)).toBeUndefined();
    repo.saveRoute(ADDRESS, { activePack: 'journal', sessionId: session.id }, 2);
    expect(repo.route(ADDRESS)?.activePack).toBe('journal');
    repo.saveRouteSettings(ADDRESS, { usageFooter: true }, 3);
    expect(repo.route(ADDRESS)?.usageFooter).toBe(true);

    const other = openCoreStore(env.home);
    try {
      createSessionRepo(other.db).saveRoute(ADDRESS, { activePack: 'vocab', sessionId: null }, 4);
    } finally {
      other.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(repo.route(ADDRESS)).toMatchObject({ activePack: 'vocab', sessionId: null });
  });
});

describe('sessions', () => {
  it('read one changed here at once, and one another process changed from the next task on', async () => {
    const { repo, session } = opened();
    expect(repo.session(session.id)?.summary).toBeNull();
    repo.saveSummary(session.id, 'basil talk', 3);
    expect(repo.session(session.id)).toMatchObject({ summary: 'basil talk', summaryUpto: 3 });
    repo.taint(session.id, ['https://example.com'], 4);
    expect(repo.session(session.id)?.taintedAt).toBe(4);
    repo.closeSession(session.id, 5);
    expect(repo.session(session.id)?.closedAt).toBe(5);

    const other = openCoreStore(env.home);
    try {
      createSessionRepo(other.db).saveSummary(session.id, 'tomato talk', 6);
    } finally {
      other.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(repo.session(session.id)).toMatchObject({ summary: 'tomato talk', summaryUpto: 6 });
  });
});
