/**
 * One workload run against one bot: every chat says something, `turns` times, `gapMs`
 * apart; each turn is timed on the fakes' clocks, so both bots are measured the same way:
 *
 *   before = the model request has arrived − getUpdates served the update
 *   after  = sendMessage has arrived − the model's streamed reply ended
 *
 * One unmeasured turn per chat comes first: a conversation's first turn binds its pack and
 * opens its session, once in its life.
 */

import { lastUserText, type RecordedRequest } from '../../test/fakes/model-server.ts';
import type { ApiCall } from '../../test/fakes/telegram-server.ts';
import type { BotChild } from './bot-control.ts';
import type { Rig } from './rig.ts';
import { sleep, until } from './stats.ts';

export interface WorkloadSpec {
  name: string;
  /** Private chats: the chat id is the user's id. */
  chats: readonly number[];
  turns: number;
  gapMs: number;
  /**
   * How long the fake model thinks before it answers (the same for both bots). Neither
   * window includes it, but work a bot does while the model thinks (a typing action, the
   * next long poll) falls into the "after" window when the model answers at once.
   */
  modelMs: number;
}

export interface TurnTiming {
  before: number;
  after: number;
}

export interface WorkloadRun {
  turns: TurnTiming[];
  /** The bot's CPU time over the measured turns, per turn. */
  cpuMsPerTurn: number;
  /** Typing actions sent, and how many of them arrived after the turn's reply (misleading). */
  typing: { sent: number; late: number };
}

const LABEL = /bench-\d+-\d+-\d+/;
let runs = 0;

export async function runWorkload(
  rig: Rig,
  bot: BotChild,
  spec: WorkloadSpec,
): Promise<WorkloadRun> {
  const { tg, model } = rig;
  const run = ++runs;
  tg.clearCalls();
  model.reset();
  model.setDefault((req) => ({ text: `echo: ${lastUserText(req)}`, delayMs: spec.modelMs }));
  const label = (chat: number, turn: number) => `bench-${run}-${chat}-${turn}`;
  const updates = new Map<string, number>();
  const say = (chat: number, turn: number) =>
    updates.set(label(chat, turn), tg.text({ userId: chat, text: label(chat, turn) }));

  for (const chat of spec.chats) say(chat, 0);
  await replies(rig, [...updates.keys()]);

  const cpuBefore = await bot.cpuMs();
  const started = Date.now();
  for (let turn = 1; turn <= spec.turns; turn++) {
    await sleep(started + (turn - 1) * spec.gapMs - Date.now());
    for (const chat of spec.chats) say(chat, turn);
  }
  const measured = [...updates.keys()].filter((l) => !l.endsWith('-0'));
  const sent = await replies(rig, [...updates.keys()]);
  const cpuMsPerTurn = ((await bot.cpuMs()) - cpuBefore) / measured.length;
  const last = Math.max(...updates.values());
  // The bot confirms the last update with its next getUpdates: the next bot starts clean.
  await until(() => (tg.confirmedOffset() > last ? true : undefined), 'the offset confirmed');

  const requests = new Map<string, RecordedRequest>();
  for (const r of model.chatRequests()) requests.set(lastUserText(r), r);
  const turns = measured.map((l) => {
    const request = requests.get(l);
    const served = tg.servedAt(updates.get(l)!);
    if (!request?.endedAt || served === undefined) throw new Error(`${l}: not measured`);
    return {
      before: request.receivedAt - served,
      after: sent.get(l)!.receivedAt - request.endedAt,
    };
  });
  return { turns, cpuMsPerTurn, typing: lateTyping(rig, updates, sent) };
}

/**
 * Typing actions, and those that arrived in a chat after its reply and before its next
 * message was served: a "typing…" shown for an answer already given.
 */
function lateTyping(
  rig: Rig,
  updates: Map<string, number>,
  sent: Map<string, ApiCall>,
): WorkloadRun['typing'] {
  const events: { chat: number; at: number; kind: 'asked' | 'answered' | 'typing' }[] = [];
  for (const [l, updateId] of updates) {
    const chat = Number(l.split('-')[2]);
    events.push({ chat, at: rig.tg.servedAt(updateId)!, kind: 'asked' });
    events.push({ chat, at: sent.get(l)!.receivedAt, kind: 'answered' });
  }
  const typing = rig.tg.calls('sendChatAction');
  for (const call of typing)
    events.push({ chat: Number(call.params.chat_id), at: call.receivedAt, kind: 'typing' });
  const state = new Map<number, string>();
  let late = 0;
  for (const e of events.sort((a, b) => a.at - b.at)) {
    if (e.kind === 'typing' && state.get(e.chat) === 'answered') late++;
    else if (e.kind !== 'typing') state.set(e.chat, e.kind);
  }
  return { sent: typing.length, late };
}

/** Waits for a sendMessage carrying each label; returns them by label. */
async function replies(rig: Rig, labels: readonly string[]): Promise<Map<string, ApiCall>> {
  const found = new Map<string, ApiCall>();
  await until(
    () => {
      for (const call of rig.tg.calls('sendMessage')) {
        const l = LABEL.exec(String(call.params.text))?.[0];
        if (l && !found.has(l)) found.set(l, call);
      }
      return labels.every((l) => found.has(l)) ? true : undefined;
    },
    `${labels.length} replies`,
    60_000,
  );
  return found;
}
