import { describe, expect, it, vi } from 'vitest';
import { STOPPED } from '../../src/core/errors.ts';
import { BUSY } from '../../src/turn/conversations.ts';
import { QUEUE_MODES } from '../../src/turn/queue-command.ts';
import { type RecordedRequest, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const BOB = 222;
const GROUP = -100500;

/** A model call that stays open until the test opens it. */
function gate(): { until: Promise<void>; open(): void } {
  let open = () => {};
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { until, open };
}

/** The numbers from `from` to `to`. */
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A first model call that asks for a tool. */
const TOOL_ROUND = { toolCalls: [{ name: 'memory', arguments: { action: 'read' } }] };

/** The roles of the messages a request sent, in order (the system prompt left out). */
const roles = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string }[]).map((m) => m.role).filter((r) => r !== 'system');

const storedMessages = () =>
  h.rows<{ role: string; content: string }>('SELECT role, content FROM messages ORDER BY id');

const heldForTheTurn = () => expect(h.logs('steer_held')).toHaveLength(1);

/**
 * Sends `first`; while its first model call (`call`, then the replies `then`) is open, sends
 * `second`, and lets the call go on once `arrived` holds (by default: held for the turn).
 */
async function sendDuringCall(
  call: object,
  [first, second]: [string, string],
  then: object[],
  arrived = heldForTheTurn,
) {
  const held = gate();
  h.model.enqueue({ ...call, until: held.until }, ...then);
  h.say(first);
  await h.model.waitForRequest(1);
  h.say(second);
  await vi.waitFor(arrived);
  held.open();
}

/** A turn whose tool round is in flight, and `steered` sent into it. */
const steerIntoToolRound = (first: string, steered: string, ...then: object[]) =>
  sendDuringCall(TOOL_ROUND, [first, steered], then);

/** Stored once each, in order: the message, the tool round, the steered message, one answer. */
function expectStoredInOrder() {
  const stored = storedMessages();
  expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  expect(stored[3]?.content).toBe('and the cactus too');
}

/** Each message got a turn and an answer of its own: the last two requests show it. */
function expectOwnTurns(answers: string[], [first, second]: [string, string]) {
  expect(h.tg.texts(ALLOWED_USER)).toEqual(answers);
  const requests = h.model.chatRequests();
  expect(userTexts(requests.at(-2)!)).toEqual([first]);
  expect(userTexts(requests.at(-1)!)).toEqual([first, second]);
}

describe('steering a running turn (SPEC §18)', () => {
  it('takes a message sent during a tool round into the next model call, and answers once', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.say('/queue steer');
    await settled(h, 1);

    await steerIntoToolRound('water the fern', 'and the cactus too', { text: 'Both watered.' });
    await settled(h, 3);

    const requests = h.model.chatRequests();
    expect(requests).toHaveLength(2);
    expect(userTexts(requests[0]!)).toEqual(['water the fern']);
    // After the tool result of the round that was in flight, as a user message of its own.
    expect(roles(requests[1]!)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(userTexts(requests[1]!)).toEqual(['water the fern', 'and the cactus too']);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      `Queue mode: steer. ${QUEUE_MODES.steer}`,
      'Both watered.',
    ]);
    expectStoredInOrder();
    expect(h.logs('turn_steered')).toMatchObject([{ messages: 1 }]);
    expect(h.logs('turn_completed')).toHaveLength(1);
  });

  it('keeps a message sent while the final answer is written for a turn of its own', async () => {
    await h.start({ QUEUE_MODE: 'steer' });
    await sendDuringCall(
      { text: 'First answer.' },
      ['first', 'second'],
      [{ text: 'Second answer.' }],
    );
    await settled(h, 2);

    expectOwnTurns(['First answer.', 'Second answer.'], ['first', 'second']);
    expect(h.logs('turn_steered')).toEqual([]);
    expect(h.logs('turn_completed')).toHaveLength(2);
  });

  it('in followup mode (the default) a message sent during a tool round waits its turn', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    await sendDuringCall(
      TOOL_ROUND,
      ['water the fern', 'and the cactus too'],
      [{ text: 'Fern watered.' }, { text: 'Cactus too.' }],
      () => expect(h.rows('SELECT 1 FROM inbound_updates')).toHaveLength(2),
    );
    await settled(h, 2);

    expectOwnTurns(['Fern watered.', 'Cactus too.'], ['water the fern', 'and the cactus too']);
    expect(h.logs('steer_held')).toEqual([]);
  });

  it("does not steer another person's message, nor a command", async () => {
    await h.start({
      QUEUE_MODE: 'steer',
      GROUP_REPLY: 'all',
      ALLOWED_USER_IDS: `${ALLOWED_USER},${BOB}`,
    });
    h.tg.nameUser(BOB, 'Bob');
    const held = gate();
    h.model.enqueue({ text: 'For you.', until: held.until }, { text: 'For Bob.' });
    h.tg.text({ userId: ALLOWED_USER, chatId: GROUP, chatType: 'supergroup', text: 'mine' });
    await h.model.waitForRequest(1);
    h.tg.text({ userId: BOB, chatId: GROUP, chatType: 'supergroup', text: 'mine too' });
    h.tg.text({ userId: ALLOWED_USER, chatId: GROUP, chatType: 'supergroup', text: '/queue' });
    await vi.waitFor(() => expect(h.rows('SELECT 1 FROM inbound_updates')).toHaveLength(3));
    held.open();
    await settled(h, 3);

    expect(h.tg.texts(GROUP)).toEqual([
      'For you.',
      'For Bob.',
      `Queue mode: steer (the default, QUEUE_MODE). ${QUEUE_MODES.steer} Send /queue steer or /queue followup to change it.`,
    ]);
    expect(userTexts(h.model.chatRequests()[1]!).at(-1)).toBe('Bob: mine too');
    expect(h.logs('steer_held')).toEqual([]);
  });

  it('/stop ends a steered turn: the taken message stays stored, and all are settled', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), QUEUE_MODE: 'steer' });
    await steerIntoToolRound('water the fern', 'and the cactus too', { hang: true });
    expect(userTexts(await h.model.waitForRequest(2)).at(-1)).toBe('and the cactus too');
    h.say('/stop');
    await settled(h, 3);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([STOPPED]);
    expect(storedMessages().map((m) => m.content.slice(0, 5))).toEqual([
      'water',
      '',
      expect.any(String),
      'and t',
    ]);
    h.say('what now');
    await settled(h, 4);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([STOPPED, 'echo: what now']);
    expect(h.model.chatRequests()).toHaveLength(3);
    expect(userTexts(h.model.chatRequests()[2]!)).toEqual([
      'water the fern',
      'and the cactus too',
      'what now',
    ]);
  });

  for (const restartMode of ['steer', 'followup'] as const) {
    it(`a crash after a message joined loses nothing and answers once (restart in ${restartMode})`, async () => {
      await h.start(
        { SATCHEL_PACKS: fixturePacks(['alpha']), QUEUE_MODE: 'steer' },
        { app: { shutdownGraceMs: 100 } },
      );
      await steerIntoToolRound('water the fern', 'and the cactus too', { hang: true });
      await h.model.waitForRequest(2);
      // Cut off like a crash: the turn is aborted before its answer; both updates stay pending.
      h.model.enqueue({ text: 'Both watered.' });
      h.env.QUEUE_MODE = restartMode;
      await h.restart();
      await settled(h, 2);

      expect(h.tg.texts(ALLOWED_USER)).toEqual(['Both watered.']);
      const requests = h.model.chatRequests();
      expect(requests).toHaveLength(3);
      expect(userTexts(requests[2]!)).toEqual(['water the fern', 'and the cactus too']);
      expectStoredInOrder();
      // The replayed message comes as a turn of its own (always in followup mode; in steer
      // mode when it came after the replayed turn's last model call), already answered.
      if (restartMode === 'followup') expect(h.logs('turn_already_answered')).toHaveLength(1);
    });
  }

  for (const restartMode of ['steer', 'followup'] as const) {
    it(`after a crash, replayed messages the turn answered get no busy reply (restart in ${restartMode})`, async () => {
      await h.start(
        { SATCHEL_PACKS: fixturePacks(['alpha']), QUEUE_MODE: 'steer' },
        { app: { shutdownGraceMs: 100 } },
      );
      const held = gate();
      h.model.enqueue({ ...TOOL_ROUND, until: held.until }, { hang: true });
      h.say('water the plants');
      await h.model.waitForRequest(1);
      for (let i = 1; i <= 12; i++) h.say(`plant ${i}`);
      await vi.waitFor(() => expect(h.logs('steer_held')).toHaveLength(12));
      held.open();
      await h.model.waitForRequest(2);
      // Cut off like a crash in the steered call: all 13 updates stay pending. The replayed
      // turn answers once every replay has come in: more than five then wait behind it.
      const replayed = gate();
      h.model.enqueue({ text: 'All watered.', until: replayed.until });
      h.env.QUEUE_MODE = restartMode;
      await h.restart();
      await h.model.waitForRequest(3);
      if (restartMode === 'steer')
        await vi.waitFor(() => expect(h.logs('steer_held')).toHaveLength(12 + 12));
      else
        await vi.waitFor(() =>
          expect(h.logs('turn_replay_waits').length + h.logs('turn_rejected_busy').length).toBe(7),
        );
      replayed.open();
      await settled(h, 13);

      expect(h.tg.texts(ALLOWED_USER)).toEqual(['All watered.']);
      expect(h.logs('turn_rejected_busy')).toEqual([]);
      expect(h.logs('turn_already_answered')).toHaveLength(12);
      expect(h.model.chatRequests()).toHaveLength(3);
      const stored = storedMessages().filter((m) => m.role === 'user');
      expect(stored.map((m) => m.content)).toEqual([
        'water the plants',
        ...range(1, 12).map((i) => `plant ${i}`),
      ]);
    });
  }

  it('takes at most 20 messages into a turn; more wait for the next turn, past five the busy reply', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), QUEUE_MODE: 'steer' });
    const [first, second] = [gate(), gate()];
    h.model.enqueue(
      { ...TOOL_ROUND, until: first.until },
      { ...TOOL_ROUND, until: second.until },
      { text: 'All noted.' },
    );
    const kb = (i: number) => `item ${i} `.padEnd(1024, 'x');
    h.say('list these');
    await h.model.waitForRequest(1);
    for (let i = 1; i <= 20; i++) h.say(kb(i));
    await vi.waitFor(() => expect(h.logs('steer_held')).toHaveLength(20));
    first.open();
    // The 20 steered texts as the model reads them: one user message after the tool result.
    const steered = range(1, 20).map(kb).join('\n');
    expect(userTexts(await h.model.waitForRequest(2))).toEqual(['list these', steered]);
    // The turn has taken in 20: seven more wait as followups do, five turns and two "busy".
    for (let i = 21; i <= 27; i++) h.say(kb(i));
    await vi.waitFor(() => expect(h.logs('turn_rejected_busy')).toHaveLength(2));
    second.open();
    await settled(h, 28);

    expect(h.logs('turn_steered')).toMatchObject([{ messages: 20 }]);
    const requests = h.model.chatRequests();
    expect(requests).toHaveLength(3 + 5);
    expect(userTexts(requests[2]!)).toEqual(['list these', steered]);
    expect(userTexts(requests[3]!).at(-1)).toBe(kb(21));
    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts.slice(0, 3)).toEqual([BUSY, BUSY, 'All noted.']);
    expect(texts.slice(3).map((t) => t.split(' ', 3).join(' '))).toEqual(
      range(21, 25).map((i) => `echo: item ${i}`),
    );
  });

  it('/queue says the mode, sets it per chat, and goes back to followup', async () => {
    await h.start();
    h.say('/queue');
    h.say('/queue steer');
    h.say('/queue');
    h.say('/queue sideways');
    h.say('/queue followup');
    await settled(h, 5);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      `Queue mode: followup (the default, QUEUE_MODE). ${QUEUE_MODES.followup} Send /queue steer or /queue followup to change it.`,
      `Queue mode: steer. ${QUEUE_MODES.steer}`,
      `Queue mode: steer. ${QUEUE_MODES.steer} Send /queue steer or /queue followup to change it.`,
      'Send /queue to see the queue mode, or /queue steer|followup.',
      `Queue mode: followup. ${QUEUE_MODES.followup}`,
    ]);
    expect(h.rows('SELECT queue_mode FROM conversation_routes')).toEqual([
      { queue_mode: 'followup' },
    ]);
    h.say('/help');
    await settled(h, 6);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain('/queue — Messages sent while I work');
    const menu = h.tg.calls('setMyCommands')[0]?.params.commands as { command: string }[];
    expect(menu.map((c) => c.command)).toContain('queue');
  });
});
