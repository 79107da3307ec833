/**
 * First visible text: how long after the model's first token the user sees something. The
 * fake model streams slowly (`chunkDelayMs`), so the first content chunk stands alone;
 * measured from the moment it was written to the first `sendMessageDraft` (a private chat)
 * or the first `sendMessage` (a group) that reached the fake Telegram.
 */
import type { RecordedRequest } from '../../test/fakes/model-server.ts';
import { lastUserText } from '../../test/fakes/model-server.ts';
import type { Rig } from './rig.ts';
import { sleep, until } from './stats.ts';

export const FIRST_TEXT_USER = 6001;
export const FIRST_TEXT_GROUP = -1006001;
const CHUNKS = 8;
const CHUNK_DELAY_MS = 120;
const FILLER =
  'Here is a longer answer that streams in slowly, one piece at a time, so that the draft ' +
  'or the first message has something to show while the rest of it is still being written.';

export interface FirstText {
  private: number[];
  group: number[];
}

/** `turns` turns in a private chat, then as many in a group, one at a time (satchel runs). */
export async function measureFirstText(rig: Rig, turns = 6): Promise<FirstText> {
  const { tg, model } = rig;
  tg.clearCalls();
  model.reset();
  model.setDefault((req) => ({
    text: `${lastUserText(req)}: ${FILLER}`,
    chunks: CHUNKS,
    chunkDelayMs: CHUNK_DELAY_MS,
  }));
  const result: FirstText = { private: [], group: [] };
  try {
    // One turn each first: binding the pack and opening the session happen once.
    for (const [where, chatId] of [
      ['private', FIRST_TEXT_USER],
      ['group', FIRST_TEXT_GROUP],
    ] as const) {
      for (let turn = 0; turn <= turns; turn++) {
        const label = `first-${where}-${turn}`;
        tg.text({ userId: FIRST_TEXT_USER, chatId, text: label });
        const request = await until(
          // In a group the text comes with its sender's name.
          () => model.chatRequests().find((r) => lastUserText(r).endsWith(label) && r.endedAt),
          `the answer to ${label}`,
        );
        const method = where === 'private' ? 'sendMessageDraft' : 'sendMessage';
        const shown = await until(() => firstCall(rig, chatId, method, request), `${label} shown`);
        if (turn > 0) result[where].push(shown - request.firstContentAt!);
        // Let the final text (and the last edit, at most one a second) go out.
        await sleep(1200);
      }
    }
  } finally {
    model.reset();
  }
  return result;
}

function firstCall(
  rig: Rig,
  chatId: number,
  method: string,
  request: RecordedRequest,
): number | undefined {
  return rig.tg
    .calls(method)
    .find((c) => Number(c.params.chat_id) === chatId && c.receivedAt > request.receivedAt)
    ?.receivedAt;
}
