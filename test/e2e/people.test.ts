/**
 * People (SPEC §19) end to end: each person's daily caps, told to that person only while the
 * owner's turns go on; `/people` for the owner (list, cap, remove, purge) and refused to others;
 * `by_person` in /api/usage.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ALLOWED_USER,
  fixturePacks,
  harnessPerTest,
  STRANGER,
  settled,
} from '../support/harness.ts';
import { startWithUsageApi } from '../support/usage-api.ts';

const h = harnessPerTest();
const GUEST = 222;

describe('caps per person', () => {
  it('over PERSON_DAILY_TOKENS the person is told, and the owner is answered as before', async () => {
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`, PERSON_DAILY_TOKENS: '20' });
    h.tg.text({ userId: GUEST, text: 'first' });
    await settled(h, 1);
    expect(h.tg.texts(GUEST).at(-1)).toBe('echo: first');
    // 15 tokens booked to them: under the cap, so one more call goes out, and reaches it.
    h.tg.text({ userId: GUEST, text: 'second' });
    await settled(h, 2);
    h.tg.text({ userId: GUEST, text: 'third' });
    await settled(h, 3);
    expect(h.tg.texts(GUEST).at(-1)).toMatch(
      /^You reached your daily token cap: 30 tokens of 20 tokens used\. The owner of this assistant sets it\./,
    );
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(h.logs('quota_exceeded')).toMatchObject([{ person: String(GUEST) }]);

    h.say('mine');
    await settled(h, 4);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('echo: mine');
    expect(h.tg.texts(ALLOWED_USER).join('\n')).not.toContain('cap');
  });

  it('/people cap ID USD sets one person’s spend cap, which the gate holds', async () => {
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`, PERSON_DAILY_TOKENS: '0' });
    h.tg.text({ userId: GUEST, text: 'hello' });
    await settled(h, 1);
    h.say(`/people cap ${GUEST} 0.000001`);
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(
      `User (${GUEST}) may spend up to $0.0000010 a day now.`,
    );
    expect(h.rows('SELECT daily_usd FROM people WHERE id = ?', String(GUEST))).toEqual([
      { daily_usd: 0.000001 },
    ]);
    h.tg.text({ userId: GUEST, text: 'again' });
    await settled(h, 3);
    expect(h.tg.texts(GUEST).at(-1)).toMatch(/^You reached your daily spend cap: /);
  });
});

describe('/people', () => {
  it('lists everyone for the owner, says once what stayed in their home, and refuses others', async () => {
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}` });
    h.tg.nameUser(GUEST, 'Gus');
    h.tg.text({ userId: GUEST, text: 'hi' });
    await settled(h, 1);
    h.tg.text({ userId: GUEST, text: '/people' });
    await settled(h, 2);
    expect(h.tg.texts(GUEST).at(-1)).toBe('Only the owner can see and change who uses me.');

    h.say('/people');
    await settled(h, 3);
    const listing = h.tg.texts(ALLOWED_USER).at(-1)!;
    expect(listing).toMatch(/^People:\n• owner — id owner — the owner; \$0 today, \$0 in all; /);
    expect(listing).toMatch(
      new RegExp(
        `• Gus — id ${GUEST} — listed; \\$\\S+ today, \\$\\S+ in all, cap \\$0\\.5000/day; last message `,
      ),
    );
    // A fresh install has nothing from before people were kept: no note.
    expect(listing).not.toContain('stayed in your home');
  });

  it('remove takes a paired person out and pauses their jobs; purge deletes their homes', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.exec(
      "INSERT INTO paired_users (platform, user_id, chat_id, name, paired_at) VALUES ('tg', ?, ?, 'Sam', 0)",
      String(STRANGER),
      String(STRANGER),
    );
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'schedule',
            arguments: { action: 'create', schedule: '0 9 * * *', prompt: 'ping' },
          },
        ],
      },
      { text: 'set' },
    );
    h.tg.nameUser(STRANGER, 'Sam');
    h.tg.text({ userId: STRANGER, text: 'remind me' });
    await settled(h, 1);
    const home = path.join(h.home, 'packs', 'alpha', 'people', String(STRANGER));
    expect(existsSync(path.join(home, 'pack.db'))).toBe(true);

    h.say(`/people remove ${STRANGER}`);
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(
      `Removed Sam (${STRANGER}): they are a stranger again. 2 jobs of theirs paused. Their homes stay until /people purge ${STRANGER}.`,
    );
    // The job they made, and the pack's own job in their chat.
    expect(h.rows('SELECT source, enabled, paused_by FROM jobs ORDER BY source')).toEqual([
      { source: 'manifest', enabled: 0, paused_by: 'removed' },
      { source: 'tool', enabled: 0, paused_by: 'removed' },
    ]);
    expect(h.rows('SELECT 1 FROM paired_users')).toHaveLength(0);
    expect(existsSync(home)).toBe(true);

    h.say(`/people purge ${STRANGER}`);
    await settled(h, 3);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(
      `Deleted the homes of Sam (${STRANGER}) in 1 pack.`,
    );
    expect(existsSync(home)).toBe(false);
    expect(h.rows('SELECT id FROM people')).toEqual([{ id: 'owner' }]);
  });
});

describe('by_person in /api/usage', () => {
  it('shows what each person spent, today and in the last 30 days, and each turn’s person and channel', async () => {
    const api = await startWithUsageApi(h, { ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}` });
    h.tg.nameUser(GUEST, 'Gus');
    h.tg.text({ userId: GUEST, text: 'one' });
    await settled(h, 1);
    h.tg.text({ userId: GUEST, text: 'two' });
    await settled(h, 2);
    h.say('mine');
    await settled(h, 3);
    const usage = await api.usage();
    const expected = [
      { person: String(GUEST), name: 'Gus', calls: 2, tokens: 30 },
      { person: 'owner', name: 'owner', calls: 1, tokens: 15 },
    ];
    expect(usage.by_person.today).toMatchObject(expected);
    expect(usage.by_person.last_30_days).toMatchObject(expected);
    expect(usage.recent_turns[0]).toMatchObject({ person: 'owner', channel: 'tg', source: 'chat' });
    expect(usage.recent_turns[1]).toMatchObject({ person: String(GUEST), channel: 'tg' });
  });
});
