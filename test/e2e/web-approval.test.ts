/**
 * SPEC §17's approval in the web chat, on the wire (the browser test drives the buttons):
 * a question nobody answers within APPROVAL_TIMEOUT_MS is a refusal.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/model-requests.ts';
import { type ChatClient, shownText } from '../support/chat-client.ts';
import { fixtureWithTools } from '../support/harness.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const NOT_APPROVED = 'Error: the owner did not approve this call';

const web = webChatPerTest();
const { h } = web;

const start = (env: Record<string, string>): Promise<ChatClient> =>
  web.start({ SATCHEL_PACKS: fixtureWithTools('alpha', ['memory']), ...env });

describe('an approval in the web chat that nobody answers', () => {
  it('times out: the model reads the refusal, MEMORY.md is unchanged, the log says timeout and the buttons go', async () => {
    // Real time: the timeout is the behaviour under test (300 ms, not a speed claim).
    const c = await start({ TOOL_APPROVAL: 'always', APPROVAL_TIMEOUT_MS: '300' });
    const memory = () => readFileSync(path.join(h!.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');
    const before = memory();
    h!.model.enqueue(
      {
        toolCalls: [
          {
            name: 'memory',
            arguments: { action: 'append', file: 'MEMORY.md', text: 'owner has a fern' },
          },
        ],
      },
      { text: 'Not saved.' },
    );
    await c.send('remember my fern');

    const [question] = await c.waitForBot(1);
    expect(question!.buttons?.flat().map((b) => b.text)).toEqual([
      'Allow once',
      'Always allow memory in alpha',
      'Deny',
    ]);
    const [, answer] = await c.waitForBot(2);
    expect(shownText(answer!)).toBe('Not saved.');
    expect(toolResults(h!.model.chatRequests()[1])).toEqual([NOT_APPROVED]);
    expect(memory()).toBe(before);
    expect(h!.logs('approval_requested')).toMatchObject([{ tool: 'memory', effect: 'write' }]);
    expect(h!.logs('approval_denied')).toMatchObject([
      { tool: 'memory', pack: 'alpha', reason: 'timeout' },
    ]);
    expect(h!.logs('approval_granted')).toEqual([]);
    // The question now says how it ended, and offers nothing to press.
    const settled = c.botEntries()[0]!;
    expect(shownText(settled)).toContain('→ not answered: denied');
    expect(settled.buttons).toBeUndefined();
    const late = await c.post('press', {
      message: question!.id,
      data: question!.buttons![0]![0]!.data,
    });
    expect(late.status).toBeGreaterThanOrEqual(400);
    expect(h!.rows('SELECT * FROM tool_grants')).toEqual([]);
  });
});
