/**
 * A group's home (SPEC §19): `/home mine`, by the owner in the group, says what it shares and
 * then makes the group use the owner's home; nobody else may; `/topics` run by the owner makes
 * its topics use the owner's home.
 */
import { describe, expect, it } from 'vitest';
import { SHARES } from '../../src/turn/home-command.ts';
import { toolResults } from '../fakes/model-requests.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { inForum } from '../support/user-acts.ts';

const h = harnessPerTest();
const GUEST = 222;
const GROUP = -100600;

const QUERY = { name: 'db_query', arguments: { sql: 'SELECT name FROM plants ORDER BY name' } };

/** The plants the last turn's query saw, from the request after it. */
function plantsSeen(): string {
  return toolResults(h.model.chatRequests().at(-1)!).at(-1)!;
}

/** The owner keeps a fern in their own home (one turn, in their private chat). */
async function ownerFern(): Promise<void> {
  h.model.enqueue(
    {
      toolCalls: [
        {
          name: 'db_write',
          arguments: { action: 'insert', table: 'plants', values: { name: 'OwnerFern' } },
        },
      ],
    },
    { text: 'kept' },
  );
  h.say('keep my fern');
  await settled(h, 1);
}

const start = () =>
  h.start({
    SATCHEL_PACKS: fixturePacks(['alpha']),
    ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
    GROUP_REPLY: 'all',
  });

describe('/home in a group', () => {
  it('the owner is told what it shares, then the group uses the owner’s home', async () => {
    await start();
    await ownerFern();
    const inGroup = (userId: number, text: string) =>
      h.tg.text({ userId, chatId: GROUP, chatType: 'supergroup', text });

    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    inGroup(GUEST, 'our plants?');
    await settled(h, 2);
    expect(plantsSeen()).not.toContain('OwnerFern');

    inGroup(ALLOWED_USER, '/home');
    await settled(h, 3);
    expect(h.tg.texts(GROUP).at(-1)).toBe(`This chat uses the home of group tg-${GROUP}.`);

    // Asked without "yes": it says what it shares and changes nothing.
    inGroup(ALLOWED_USER, '/home mine');
    await settled(h, 4);
    expect(h.tg.texts(GROUP).at(-1)).toBe(`${SHARES}\n\nSend /home mine yes to do it.`);
    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    inGroup(GUEST, 'our plants now?');
    await settled(h, 5);
    expect(plantsSeen()).not.toContain('OwnerFern');

    // Someone else may not.
    inGroup(GUEST, '/home mine yes');
    await settled(h, 6);
    expect(h.tg.texts(GROUP).at(-1)).toBe('Only the owner can make a group use the owner’s home.');
    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    inGroup(GUEST, 'and now?');
    await settled(h, 7);
    expect(plantsSeen()).not.toContain('OwnerFern');

    // The owner confirms: the group's members see the owner's rows.
    inGroup(ALLOWED_USER, '/home mine yes');
    await settled(h, 8);
    expect(h.tg.texts(GROUP).at(-1)).toBe(
      'This group uses your home now. Its own home stays on disk, unused.',
    );
    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    inGroup(GUEST, 'and after that?');
    await settled(h, 9);
    expect(plantsSeen()).toContain('OwnerFern');
    inGroup(GUEST, '/home');
    await settled(h, 10);
    expect(h.tg.texts(GROUP).at(-1)).toBe("This chat uses the owner's home.");
  });

  it('in a group nobody wrote in yet, /home mine still asks first', async () => {
    await start();
    h.tg.text({ userId: ALLOWED_USER, chatId: GROUP, chatType: 'supergroup', text: '/home mine' });
    await settled(h, 1);
    expect(h.tg.texts(GROUP)).toEqual([`${SHARES}\n\nSend /home mine yes to do it.`]);
  });
});

describe('/topics by the owner', () => {
  it('makes the topics it creates use the owner’s home; the general chat keeps the group’s', async () => {
    await start();
    await ownerFern();
    h.tg.text({ ...inForum(GROUP), text: '/topics' });
    await settled(h, 2);
    const threadId = h.tg.calls('createForumTopic')[0]!.result.message_thread_id as number;

    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    h.tg.text({ ...inForum(GROUP, threadId), userId: GUEST, text: 'our plants?' });
    await settled(h, 3);
    expect(plantsSeen()).toContain('OwnerFern');

    h.tg.text({ ...inForum(GROUP), userId: GUEST, text: '/home' });
    await settled(h, 4);
    expect(h.tg.texts(GROUP).at(-1)).toBe(`This chat uses the home of group tg-${GROUP}.`);
  });

  it('run by someone else, its topics use the group’s own home', async () => {
    await start();
    await ownerFern();
    h.tg.text({ ...inForum(GROUP), userId: GUEST, text: '/topics' });
    await settled(h, 2);
    const threadId = h.tg.calls('createForumTopic')[0]!.result.message_thread_id as number;
    h.model.enqueue({ toolCalls: [QUERY] }, { text: 'listed' });
    h.tg.text({ ...inForum(GROUP, threadId), userId: GUEST, text: 'our plants?' });
    await settled(h, 3);
    expect(plantsSeen()).not.toContain('OwnerFern');
  });
});
