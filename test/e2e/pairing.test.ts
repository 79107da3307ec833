/**
 * Pairing (SPEC §18) through the fake Bot API: a stranger in a private chat gets a code,
 * the owner's `/pair CODE` (or `satchel pair CODE`) lets them in, `/pair` lists and
 * `/pair remove ID` takes a pairing back; the limits, expiry, DM_PAIRING=off, and a flood.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { userTexts } from '../fakes/model-server.ts';
import { spawnNode } from '../support/child.ts';
import { ALLOWED_USER, harnessPerTest, STRANGER, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';

const h = harnessPerTest();
const BIN = fileURLToPath(new URL('../../scripts/satchel.mjs', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** `npx satchel pair <args>` as a child process on the harness's home and environment. */
async function satchelPair(...args: string[]) {
  const run = spawnNode(
    [BIN, 'pair', ...args],
    { cwd: h.home, env: { PATH: process.env.PATH ?? '', ...h.env }, stdin: 'ignore' },
    (cleanup) => cleanups.push(cleanup),
  );
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
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
