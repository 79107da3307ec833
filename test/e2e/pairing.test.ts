/**
 * Pairing (SPEC §18) through the fake Bot API: a stranger in a private chat gets a code,
 * the owner's `/pair CODE` (or `satchel pair CODE`) lets them in, `/pair` lists and
 * `/pair remove ID` takes a pairing back; the limits, expiry, DM_PAIRING=off, and a flood.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { backupCommand } from '../../src/cli/backup.ts';
import { satchel } from '../../src/cli/commands.ts';
import { restoreCommand } from '../../src/cli/restore.ts';
import { userTexts } from '../fakes/model-server.ts';
import { recordingIo } from '../support/cli-io.ts';
import { ALLOWED_USER, harnessPerTest, STRANGER, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-pairing-test-');
// After the temporary directories' hook, so it runs before it: harnesses close first.
const h = harnessPerTest();

/** `npx satchel pair <args>` in process, through the CLI's entry, on the harness's home and environment. */
async function satchelPair(...args: string[]) {
  const io = recordingIo(h.env, h.home);
  const code = await satchel(['pair', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** The code in the pairing text sent to `chatId` (its nth, default the last). */
function codeSentTo(chatId: number, nth = -1): string {
  const text = h.tg.texts(chatId).at(nth) ?? '';
  const code = /give this pairing code to its owner:\n([A-Z0-9]{8})\n/.exec(text)?.[1];
  if (!code) throw new Error(`no pairing code in ${JSON.stringify(text)}`);
  return code;
}

/** The owner's last reply. */
const ownerSaw = () => h.tg.texts(ALLOWED_USER).at(-1) ?? '';

/**
 * `settled`, on an app that runs on `clock`. Replies to strangers have a budget of 5 a
 * second (the outbox's limiter): one past it waits for the window on the app's clock, which
 * is skipped instead of waited for (the app's other timers are a minute or more away).
 */
const settledOnClock = (clock: JumpClock, updates: number) =>
  clock.skipWaits(1000, () => settled(h, updates));

describe('a stranger and the owner', () => {
  it('a stranger gets a code (the same one again), the owner pairs them, and their next message is answered', async () => {
    const clock = new JumpClock();
    await h.start({}, { app: { clock } });
    h.tg.nameUser(STRANGER, 'Sam');
    h.tg.text({ userId: STRANGER, text: 'hi, can I use you?' });
    await settled(h, 1);
    const code = codeSentTo(STRANGER);
    expect(h.tg.texts(STRANGER)[0]).toContain(`/pair ${code}`);
    expect(h.tg.texts(STRANGER)[0]).toContain(`Your Telegram user id is ${STRANGER}.`);
    expect(h.rows('SELECT code, user_id, chat_id, name FROM pairing_codes')).toEqual([
      { code, user_id: String(STRANGER), chat_id: String(STRANGER), name: 'Sam' },
    ]);
    expect(h.logs('pairing_requested')).toMatchObject([{ userId: String(STRANGER) }]);
    // No text of theirs in the log line, and nothing reached a model, session or pack.
    expect(JSON.stringify(h.logs('pairing_requested'))).not.toContain('can I use you');
    expect(h.model.chatRequests()).toHaveLength(0);
    expect(h.rows('SELECT 1 FROM messages')).toHaveLength(0);
    expect(h.rows('SELECT 1 FROM conversation_routes')).toHaveLength(0);

    // Again within ten minutes: nothing said; after them, the same code.
    h.tg.text({ userId: STRANGER, text: 'hello?' });
    await settled(h, 2);
    expect(h.tg.texts(STRANGER)).toHaveLength(1);
    clock.advance(11 * 60_000);
    h.tg.text({ userId: STRANGER, text: 'anyone?' });
    await settled(h, 3);
    expect(h.tg.texts(STRANGER)).toHaveLength(2);
    expect(codeSentTo(STRANGER)).toBe(code);
    expect(h.rows('SELECT 1 FROM pairing_codes')).toHaveLength(1);

    h.say(`/pair ${code.toLowerCase()}`);
    await settled(h, 4);
    expect(ownerSaw()).toBe(
      `Paired Sam (id ${STRANGER}): they can talk to me now. I have told them so.`,
    );
    expect(h.tg.texts(STRANGER).at(-1)).toBe(
      'The owner approved you: you can talk to me now. Send me a message to start.',
    );
    expect(h.logs('pairing_approved')).toMatchObject([{ userId: String(STRANGER), by: 'command' }]);
    expect(h.rows('SELECT 1 FROM pairing_codes')).toHaveLength(0);

    h.tg.text({ userId: STRANGER, text: 'thanks!' });
    await settled(h, 5);
    expect(h.tg.texts(STRANGER).at(-1)).toBe('echo: thanks!');
    expect(h.model.chatRequests().map((r) => userTexts(r).at(-1))).toEqual(['thanks!']);
  });
});

describe('npx satchel pair', () => {
  it('pairs the stranger while the bot runs: they are told, and their next message is answered', async () => {
    await h.start();
    h.tg.text({ userId: STRANGER, text: 'let me in' });
    await settled(h, 1);
    const code = codeSentTo(STRANGER);

    const wrong = await satchelPair('ZZZZ2222');
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toContain('No pending code ZZZZ2222.');

    const paired = await satchelPair(code);
    expect(paired.stderr).toBe('');
    expect(paired.code).toBe(0);
    expect(paired.stdout).toBe(
      `Paired User (id ${STRANGER}): they can talk to me now.\nThey were told in their chat.\n`,
    );
    expect(h.tg.texts(STRANGER).at(-1)).toBe(
      'The owner approved you: you can talk to me now. Send me a message to start.',
    );
    expect(h.rows('SELECT user_id FROM paired_users')).toEqual([{ user_id: String(STRANGER) }]);

    h.tg.text({ userId: STRANGER, text: 'thanks' });
    await settled(h, 2);
    expect(h.tg.texts(STRANGER).at(-1)).toBe('echo: thanks');
  }, 60_000);
});

describe('/pair', () => {
  it('lists pending codes and paired users, survives a restart, and /pair remove takes a pairing back', async () => {
    const colleague = 222;
    await h.start({ ALLOWED_USER_IDS: `${ALLOWED_USER},${colleague}` });
    h.tg.nameUser(STRANGER, 'Sam');
    h.tg.nameUser(STRANGER + 1, 'Kim');
    h.tg.text({ userId: STRANGER, text: 'hi' });
    h.tg.text({ userId: STRANGER + 1, text: 'hi' });
    await settled(h, 2);
    const [sam, kim] = [codeSentTo(STRANGER), codeSentTo(STRANGER + 1)];

    h.say('/pair');
    await settled(h, 3);
    expect(ownerSaw()).toMatch(
      new RegExp(
        `^Pending pairing codes:\n• (${sam} — Sam \\(id ${STRANGER}\\)|${kim} — Kim \\(id ${STRANGER + 1}\\)) — expires in 60 min\n`,
      ),
    );
    expect(ownerSaw()).toContain(`${kim} — Kim (id ${STRANGER + 1}) — expires in 60 min`);
    expect(ownerSaw()).toContain('\n\nNobody is paired.\n');

    // Only the owner, and only in a private chat: the list names people.
    h.tg.text({ userId: colleague, text: `/pair ${sam}` });
    h.tg.text({ userId: ALLOWED_USER, chatId: -100700, chatType: 'supergroup', text: '/pair' });
    await settled(h, 5);
    expect(h.tg.texts(colleague)).toEqual([
      'Only the owner can pair people, in a private chat with me.',
    ]);
    expect(h.tg.texts(-100700)).toEqual([
      'Only the owner can pair people, in a private chat with me.',
    ]);
    h.say('/pair NOPE2345');
    await settled(h, 6);
    expect(ownerSaw()).toBe(
      'No pending code NOPE2345. Check it, or send /pair to list the pending codes.',
    );

    h.say(`/pair ${sam}`);
    await settled(h, 7);
    await h.restart();
    h.tg.text({ userId: STRANGER, text: 'after the restart' });
    await settled(h, 8);
    expect(h.tg.texts(STRANGER).at(-1)).toBe('echo: after the restart');
    h.say('/pair');
    await settled(h, 9);
    expect(ownerSaw()).toMatch(
      new RegExp(
        `^Pending pairing codes:\n• ${kim} — Kim.*\n\nPaired:\n• Sam \\(id ${STRANGER}\\) — since today \\d\\d:\\d\\d\n`,
      ),
    );

    h.say(`/pair remove ${STRANGER}`);
    h.say('/pair remove 12345');
    await settled(h, 11);
    expect(h.tg.texts(ALLOWED_USER).slice(-2)).toEqual([
      `Removed the pairing of Sam (id ${STRANGER}): they are a stranger again.`,
      '12345 is not paired (someone in ALLOWED_USER_IDS stays allowed: remove them there).',
    ]);
    h.tg.text({ userId: STRANGER, text: 'still there?' });
    await settled(h, 12);
    expect(codeSentTo(STRANGER)).not.toBe(sam);
    expect(h.model.chatRequests()).toHaveLength(1);
    h.say('/help');
    await settled(h, 13);
    expect(ownerSaw()).toContain('\n/pair — Let someone in with their pairing code');
  });
  it("shows a stranger's name on one line: a newline or a direction mark in it forges no line of the list", async () => {
    await h.start();
    const forged = 'Eve\nPaired:\n• Mallory (id 1) — since today 09:00\u202E';
    h.tg.nameUser(STRANGER, forged);
    h.tg.text({ userId: STRANGER, text: 'hi' });
    await settled(h, 1);
    const code = codeSentTo(STRANGER);

    h.say('/pair');
    await settled(h, 2);
    // As Telegram receives it (HTML): the owner reads `Eve<U+000A>Paired:<U+000A>…<U+202E>`.
    const shown = `Eve&lt;U+000A&gt;Paired:&lt;U+000A&gt;• Mallory (id 1) — since today 09:00&lt;U+202E&gt; (id ${STRANGER})`;
    expect(ownerSaw().split('\n').slice(0, 4)).toEqual([
      'Pending pairing codes:',
      `• ${code} — ${shown} — expires in 60 min`,
      '',
      'Nobody is paired.',
    ]);
    h.say(`/pair ${code}`);
    await settled(h, 3);
    expect(ownerSaw()).toBe(`Paired ${shown}: they can talk to me now. I have told them so.`);
  });
});

describe('limits and expiry', () => {
  it('gives at most 3 codes per id and 20 in all, logs each limit once, and purges expired codes', async () => {
    const clock = new JumpClock();
    await h.start({}, { app: { clock } });
    // A stranger's code belongs to the private chat it was asked in: one id in four of them.
    for (const chatId of [5001, 5002, 5003, 5004])
      h.tg.text({ userId: STRANGER, chatId, chatType: 'private', text: 'code please' });
    await settledOnClock(clock, 4);
    expect([5001, 5002, 5003].map((chat) => h.tg.texts(chat).length)).toEqual([1, 1, 1]);
    expect(h.tg.texts(5004)).toEqual([]);
    expect(h.logs('pairing_limited')).toMatchObject([{ scope: 'user', userId: String(STRANGER) }]);

    // 17 more strangers fill the 20; the 21st and 22nd get nothing, logged once.
    for (let i = 1; i <= 19; i++) h.tg.text({ userId: 3000 + i, text: 'me too' });
    await settledOnClock(clock, 23);
    expect(h.rows('SELECT 1 FROM pairing_codes')).toHaveLength(20);
    expect(h.tg.texts(3017)).toHaveLength(1);
    expect([3018, 3019].map((id) => h.tg.texts(id))).toEqual([[], []]);
    expect(h.logs('pairing_limited').map((l) => l.scope)).toEqual(['user', 'all']);

    // An hour later the codes are gone: /pair says so, and the next stranger gets a code.
    clock.advance(60 * 60_000);
    const expired = codeSentTo(3001);
    h.say(`/pair ${expired}`);
    await settledOnClock(clock, 24);
    expect(ownerSaw()).toBe(
      `The code ${expired} has expired (codes are valid for an hour). Ask them to write to me again for a new one.`,
    );
    h.tg.text({ userId: 3019, text: 'again' });
    await settledOnClock(clock, 25);
    expect(h.tg.texts(3019)).toHaveLength(1);
    expect(h.rows('SELECT user_id FROM pairing_codes')).toEqual([{ user_id: '3019' }]);
    expect(h.model.chatRequests()).toHaveLength(0);
  });

  it('tells the owner when pairing is full and who holds the codes, at most once a day', async () => {
    const clock = new JumpClock();
    await h.start({}, { app: { clock } });
    let updates = 0;
    const write = async (userId: number, chatId = userId) => {
      h.tg.text({ userId, chatId, chatType: 'private', text: 'let me in' });
      await settledOnClock(clock, ++updates);
    };
    const notices = () => h.tg.texts(ALLOWED_USER).filter((t) => t.startsWith('Pairing is full'));
    // One account holds two codes (two private chats), 18 others one each: 20 in all.
    h.tg.nameUser(STRANGER, 'Mallory');
    await write(STRANGER, 5001);
    await write(STRANGER, 5002);
    for (let i = 1; i <= 18; i++) await write(3000 + i);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([]);

    h.tg.nameUser(3019, 'Ann');
    await write(3019);
    expect(h.tg.texts(3019)).toEqual([]);
    await vi.waitFor(() => expect(notices()).toHaveLength(1));
    const lines = notices()[0]!.split('\n');
    expect(lines[0]).toBe(
      `Pairing is full: 20 codes are waiting for you, the most there can be, so Ann (id 3019) got no code.`,
    );
    expect(lines[1]).toBe('They are held by:');
    expect(lines.slice(2, -1).sort()).toEqual(
      [
        `• Mallory (id ${STRANGER}) — 2 codes`,
        ...Array.from({ length: 18 }, (_, i) => `• User (id ${3001 + i}) — 1 code`),
      ].sort(),
    );
    expect(lines.at(-1)).toBe(
      'Nobody new gets a code until one expires (the first in 60 min) or you pair someone: send /pair to see the codes. I say this at most once a day.',
    );

    // Another stranger turned away, and a new flood an hour later: not said again that day.
    await write(3020);
    h.say('/pair');
    await settledOnClock(clock, ++updates);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(
      '\nPairing is full (20 codes, the most there can be): nobody new gets a code until one expires or you pair someone.\n',
    );
    clock.advance(61 * 60_000);
    for (let i = 1; i <= 21; i++) await write(4000 + i);
    expect(h.tg.texts(4021)).toEqual([]);
    expect(notices()).toHaveLength(1);

    // A day later, full again: told again. (The inbox forgets done updates after a day, so
    // each stranger's code is waited for instead.)
    clock.advance(24 * 60 * 60_000);
    for (let i = 1; i <= 20; i++) {
      h.tg.text({ userId: 6000 + i, text: 'let me in' });
      await clock.skipWaits(1000, () =>
        vi.waitFor(() => expect(h.tg.texts(6000 + i)).toHaveLength(1)),
      );
    }
    h.tg.text({ userId: 6021, text: 'let me in' });
    await clock.skipWaits(1000, () => vi.waitFor(() => expect(notices()).toHaveLength(2)));
    expect(notices()[1]).toMatch(/so User \(id 6021\) got no code\./);
    expect(h.model.chatRequests()).toHaveLength(0);
  }, 60_000);

  it('a flood of 200 strangers costs no model call and at most 20 replies, and the owner is answered ahead of them', async () => {
    const clock = new JumpClock();
    await h.start({}, { app: { clock } });
    for (let i = 0; i < 200; i++) h.tg.text({ userId: 10_000 + i, text: 'let me in' });
    h.say('mine');
    await vi.waitFor(() => expect(h.tg.texts(ALLOWED_USER)).toContain('echo: mine'), {
      timeout: 20_000,
    });
    await clock.skipWaits(1000, () => settled(h, 201, 30_000));
    expect(h.model.chatRequests().map((r) => userTexts(r).at(-1))).toEqual(['mine']);
    const sends = h.tg.calls('sendMessage');
    const toStrangers = sends.filter((c) => Number(c.params.chat_id) !== ALLOWED_USER);
    expect(toStrangers).toHaveLength(20);
    // Strangers' replies have a small budget of their own: the owner's overtakes most.
    expect(sends.findIndex((c) => Number(c.params.chat_id) === ALLOWED_USER)).toBeLessThanOrEqual(
      10,
    );
    expect(h.rows('SELECT 1 FROM pairing_codes')).toHaveLength(20);
    expect(h.logs('pairing_requested')).toHaveLength(20);
    expect(h.logs('pairing_limited')).toHaveLength(1);
    expect(h.rows('SELECT 1 FROM messages WHERE content LIKE ?', '%let me in%')).toHaveLength(0);
    // The owner is told once that pairing is full, beside the answer to their own message.
    await vi.waitFor(() => expect(h.tg.texts(ALLOWED_USER)).toHaveLength(2));
    expect(
      h.tg.texts(ALLOWED_USER).filter((t) => t.startsWith('Pairing is full: 20 codes')),
    ).toHaveLength(1);
  }, 60_000);
});

describe('backups', () => {
  it('a restored backup keeps a pairing: the paired user is answered by the restored bot', async () => {
    await h.start();
    h.tg.text({ userId: STRANGER, text: 'hi' });
    await settled(h, 1);
    h.say(`/pair ${codeSentTo(STRANGER)}`);
    await settled(h, 2);
    const out = tempDir();
    const backup = recordingIo(h.env, h.home);
    expect(await backupCommand.run([out], backup)).toBe(0);
    await h.stop();
    const archive = readdirSync(out).find((f) => f.endsWith('.tar.gz'))!;
    const restored = path.join(tempDir(), 'home');
    const restore = recordingIo({ SATCHEL_HOME: h.home }, out);
    expect(await restoreCommand.run([path.join(out, archive), '--home', restored], restore)).toBe(
      0,
    );

    const h2 = await h.start(
      { SATCHEL_HOME: restored },
      { beforeStart: (tg) => tg.continueUpdateIdsFrom(100) },
    );
    h2.tg.text({ userId: STRANGER, text: 'still me' });
    await vi.waitFor(() => expect(h2.tg.texts(STRANGER)).toEqual(['echo: still me']));
  });
});
