/**
 * An MCP server that hangs at start holds up only its own pack's turn (SPEC §13): another
 * chat, on another pack, is answered meanwhile; and when the start gives up, the waiting
 * turn goes on without the server's tools.
 */
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

const OTHER_USER = ALLOWED_USER + 1;
const h = harnessPerTest();

/** Chooses `pack` on the picker the bot sent to `user`'s chat. */
async function choose(user: number, pack: string): Promise<void> {
  const picker = await h.tg.waitForCall('sendMessage', (c) => Number(c.params.chat_id) === user);
  h.tg.callback({ userId: user, data: `pack:${pack}`, messageId: picker.result.message_id });
}

describe('a hanging MCP server', () => {
  it('delays no other pack’s turn, and its own turn goes on without it after timeout_ms', async () => {
    const packs = fixturePacks(['alpha', 'beta']);
    const started = path.join(packs, 'server-started');
    appendFileSync(
      path.join(packs, 'beta', 'pack.yml'),
      `mcp:\n${fixtureEntry('fx', [
        `env: {MCP_FIXTURE_MODE: hang-start, MCP_FIXTURE_START_LOG: ${JSON.stringify(started)}}`,
        'timeout_ms: 8000',
      ])}\n`,
    );
    // The start's deadline is on the app's clock: the test moves it on instead of waiting 8 s.
    const clock = new JumpClock();
    await h.start(
      { SATCHEL_PACKS: packs, ALLOWED_USER_IDS: `${ALLOWED_USER},${OTHER_USER}` },
      { app: { clock } },
    );

    h.tg.text({ userId: ALLOWED_USER, text: 'books please' });
    await choose(ALLOWED_USER, 'beta');
    // beta's turn now waits for its server: spawned, it never finishes starting.
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 10_000 });

    h.tg.text({ userId: OTHER_USER, text: 'plants please' });
    await choose(OTHER_USER, 'alpha');
    await h.tg.waitForCall(
      'sendMessage',
      (c) => Number(c.params.chat_id) === OTHER_USER && /plants please/.test(String(c.params.text)),
    );
    // Answered while beta's turn had not reached the model yet.
    expect(h.model.chatRequests().map(lastUserText)).toEqual(['plants please']);
    expect(h.logs('mcp_start_failed')).toHaveLength(0);

    // The start gives up after timeout_ms: beta's turn is answered, without fx's tools.
    expect(clock.pendingTimers().some((t) => t.ms === 8000)).toBe(true);
    clock.advance(8000);
    await h.tg.waitForCall(
      'sendMessage',
      (c) =>
        Number(c.params.chat_id) === ALLOWED_USER && /books please/.test(String(c.params.text)),
      15_000,
    );
    expect(h.logs('mcp_start_failed')).toHaveLength(1);
    const request = h.model.chatRequests().find((r) => lastUserText(r) === 'books please')!;
    const tools = (request.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name).filter((n) => n.startsWith('fx__'))).toEqual([]);
  });
});
