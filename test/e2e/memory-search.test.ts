/**
 * memory_search (SPEC §13): the model finds what was said in earlier sessions of this pack in
 * this chat, and what its notes say; another pack's conversation in the same chat, and this
 * pack's conversation in another chat, are never found.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();

function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

/** The alpha fixture pack with `memory_search` enabled. */
function alphaWithSearch(): string {
  const dir = fixturePacks(['alpha']);
  const manifest = path.join(dir, 'alpha', 'pack.yml');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8').replace('tools: [memory,', 'tools: [memory_search, memory,'),
  );
  return dir;
}

function seed(session: string, key: string, pack: string, chatId: number, texts: string[]) {
  h.exec(
    'INSERT INTO sessions (id, key, pack, address, created_at, closed_at) VALUES (?, ?, ?, ?, ?, ?)',
    session,
    key,
    pack,
    JSON.stringify({ platform: 'tg', chatId }),
    Date.UTC(2026, 0, 2),
    Date.UTC(2026, 0, 3),
  );
  for (const text of texts)
    h.exec(
      "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES (?, 't', 'user', ?, ?)",
      session,
      text,
      Date.UTC(2026, 0, 2, 14, 30),
    );
}

describe('memory_search', () => {
  it("finds this pack's past sessions in this chat and its notes, never another pack's or chat's", async () => {
    await h.start({ SATCHEL_PACKS: alphaWithSearch() });
    seed('old-alpha-session', `tg:${ALLOWED_USER}:alpha`, 'alpha', ALLOWED_USER, [
      'My sister Anna has a birthday on May 3',
      'The fern needs water weekly',
    ]);
    seed('beta-session', `tg:${ALLOWED_USER}:beta`, 'beta', ALLOWED_USER, [
      'Anna recommended a birthday book',
    ]);
    seed('other-chat', 'tg:4242:alpha', 'alpha', 4242, ['Anna from the other chat']);
    h.model.enqueue(
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'Anna birthday' } }] },
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'ALPHA-MEMORY-NOTE' } }] },
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'zebra' } }] },
      { text: 'May 3.' },
    );
    h.say('When is Anna’s birthday?');
    await settled(h, 1);

    const results = toolResults(h.model.chatRequests()[3]!);
    const lines = results[0]!.split('\n');
    // The earlier session, dated, and this turn's own message (stored before the tools run).
    expect(lines).toContain(
      '- 2026-01-02 14:30 (session old-alph, user): My sister [Anna] has a [birthday] on May 3',
    );
    expect(lines).toHaveLength(2);
    expect(lines.some((l) => l.endsWith('When is [Anna]’s [birthday]?'))).toBe(true);
    expect(results[0]).not.toContain('recommended');
    expect(results[0]).not.toContain('other chat');
    expect(results[1]).toContain('MEMORY.md: ALPHA-MEMORY-NOTE');
    expect(results[2]).toBe('Nothing found for "zebra".');
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['May 3.']);
  });

  it('is not offered to a pack that does not enable it', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['beta']) });
    h.model.enqueue({ text: 'ok' });
    h.say('hi');
    await settled(h, 1);
    const names = h.model
      .chatRequests()[0]!
      .body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names).toEqual(['memory', 'db_query']);
  });
});

describe('memory_search after a group becomes a supergroup', () => {
  it("finds the group's earlier messages in the new chat, never another chat's or pack's", async () => {
    const OLD = -4242;
    const NEW = -1004242;
    await h.start({ SATCHEL_PACKS: alphaWithSearch() });
    seed('group-past', `tg:${OLD}:alpha`, 'alpha', OLD, ['Our boat is named Wanda']);
    seed('group-beta', `tg:${OLD}:beta`, 'beta', OLD, ['Wanda in the beta pack']);
    seed('elsewhere', `tg:${NEW - 1}:alpha`, 'alpha', NEW - 1, ['Wanda from a neighbour chat']);

    h.tg.service({ userId: ALLOWED_USER, chatId: OLD, migrateTo: NEW });
    await settled(h, 1);
    h.model.enqueue(
      { toolCalls: [{ name: 'memory_search', arguments: { query: 'Wanda boat' } }] },
      { text: 'Wanda.' },
    );
    h.tg.text({
      userId: ALLOWED_USER,
      chatId: NEW,
      chatType: 'supergroup',
      text: '@satchel_test_bot what is the boat called?',
    });
    await settled(h, 2);

    const found = toolResults(h.model.chatRequests()[1]!)[0]!;
    expect(found).toContain('(session group-pa, user): Our [boat] is named [Wanda]');
    expect(found).not.toContain('beta pack');
    expect(found).not.toContain('neighbour');
    expect(h.tg.texts(NEW)).toEqual(['Wanda.']);
  });
});
