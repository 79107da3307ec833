/**
 * A channel whose ids are strings (Slack-like: chat `C024BE91L`, messages and threads named by
 * a timestamp) joins the core through the edge list alone, and the core carries its ids as
 * they are (SPEC §16): a turn with a pack, an `ask_user` answered by a press, and a job the
 * `schedule` tool made, run by the scheduler and delivered back into the thread.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Address } from '../../src/core/types.ts';
import { coreRigs, drained } from '../support/core-on-edges.ts';
import { STRING_ID_PLATFORM, stringIdEdge } from '../support/string-id-channel.ts';

const rigs = coreRigs();
const CHAT: Address = { platform: STRING_ID_PLATFORM, chatId: 'C024BE91L' };
const THREAD: Address = { ...CHAT, threadId: '1712345678.000100' };
const TS = /^1712345678\.\d{6}$/;

function start(packs?: string[]) {
  const edge = stringIdEdge();
  const rig = rigs({ edges: [edge.factory], ...(packs ? { packs } : {}) });
  const rows = (sql: string) => rig.core.store.sqlite.prepare(sql).all();
  return { ...rig, edge, rows };
}

describe('a channel with string ids', () => {
  it('answers with its pack, and an ask_user question is answered by a press of its button', async () => {
    const { core, model, edge, rows } = start();
    model.script([
      { tool: 'ask_user', args: { question: 'Which plant?', options: ['Fern', 'Cactus'] } },
      { answer: 'The **fern** needs water.' },
    ]);
    edge.say(CHAT, 'which plant needs water?');
    const asked = await vi.waitFor(() => {
      const shown = edge.channel.withButtons(CHAT);
      if (!shown) throw new Error('no question yet');
      return shown;
    });
    expect(asked.messageId).toMatch(TS);
    edge.press(CHAT, asked.messageId, asked.buttons[0]![0]!.data);
    await drained(core);

    expect(model.calls()).toEqual([
      expect.objectContaining({ tool: 'ask_user', result: 'The user chose: Fern' }),
    ]);
    expect(edge.channel.shown(CHAT).at(-1)).toBe('The fern needs water.');
    expect(edge.acked).toContain('Ev1');
    // Stored as the channel named them, never read.
    expect(rows('SELECT address, platform, chat_id, active_pack FROM conversation_routes')).toEqual(
      [
        {
          address: 'strid:C024BE91L',
          platform: 'strid',
          chat_id: 'C024BE91L',
          active_pack: 'alpha',
        },
      ],
    );
    expect(rows('SELECT key FROM sessions')).toEqual([{ key: 'strid:C024BE91L:alpha' }]);
    const sent = rows("SELECT chat_id, message_id FROM outbox WHERE status = 'sent'") as {
      chat_id: string;
      message_id: string;
    }[];
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const row of sent) {
      expect(row.chat_id).toBe('C024BE91L');
      expect(row.message_id).toMatch(TS);
    }
    expect(rows('SELECT DISTINCT chat_id FROM usage_events')).toEqual([{ chat_id: 'C024BE91L' }]);
  });

  it('runs a job the schedule tool made in a thread, and delivers it back into that thread', async () => {
    // Two packs: an answer in a private chat names its pack, a job's run too (the chat's
    // kind is its edge's to say, never read from an id).
    const { core, clock, model, edge, rows } = start(['alpha', 'beta']);
    core.router.resolve(THREAD, 'alpha');
    model.script([
      {
        tool: 'schedule',
        args: {
          action: 'create',
          schedule: '2026-11-22T12:30:00+00:00',
          prompt: 'Remind me to water the fern.',
        },
      },
      { answer: 'I will remind you at 12:30.' },
    ]);
    edge.say(THREAD, 'remind me at 12:30 to water the fern');
    await drained(core);
    const badge = '\n\n— Alpha Garden';
    const receipt = '\n\n✓ reminder set for today 12:30';
    expect(edge.channel.shown(THREAD)).toEqual([`I will remind you at 12:30.${receipt}${badge}`]);
    expect(rows("SELECT platform, chat_id, thread_id FROM jobs WHERE source = 'tool'")).toEqual([
      { platform: 'strid', chat_id: 'C024BE91L', thread_id: '1712345678.000100' },
    ]);

    core.scheduler.start();
    // The pack's own daily job joins the conversation it was bound in, keyed by its ids.
    await vi.waitFor(() =>
      expect(rows("SELECT manifest_key FROM jobs WHERE source = 'manifest'")).toEqual([
        { manifest_key: 'alpha:water-check:strid:C024BE91L:1712345678.000100' },
      ]),
    );
    model.script([{ answer: 'Time to water the fern.' }]);
    clock.advance(31 * 60 * 1000);
    await vi.waitFor(() =>
      expect(edge.channel.shown(THREAD)).toEqual([
        `I will remind you at 12:30.\n\n✓ reminder set for today 12:30${badge}`,
        `Time to water the fern.${badge}`,
      ]),
    );
    await drained(core);
    expect(edge.channel.shown(CHAT)).toEqual([]);
    expect(rows("SELECT count(*) AS n FROM jobs WHERE source = 'tool'")).toEqual([{ n: 0 }]);
  });
});
