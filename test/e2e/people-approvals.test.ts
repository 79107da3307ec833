/**
 * Approvals follow the home (SPEC §17, §19): in a person's private chat that person approves
 * their own calls, and "Always allow" holds for the home it was given in only.
 */
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/model-requests.ts';
import { approvalAsked, isApproval } from '../support/approvals.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

const h = harnessPerTest();
const GUEST = 222;

const appendMemory = (text: string) => ({
  toolCalls: [{ name: 'memory', arguments: { action: 'append', file: 'MEMORY.md', text } }],
});

describe('approvals in a person’s home', () => {
  it('the person approves in their own chat; their "Always allow" holds in their home only', async () => {
    await h.start({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
      TOOL_APPROVAL: 'always',
    });
    h.model.enqueue(appendMemory('guest line'), { text: 'noted' });
    h.tg.text({ userId: GUEST, text: 'note this' });
    const asked = await approvalAsked(h);
    expect(asked.question.params.chat_id).toBe(GUEST);
    expect(asked.labels).toEqual(['Allow once', 'Always allow memory in alpha', 'Deny']);
    asked.press('Always allow', GUEST, GUEST);
    await settled(h, 2);
    expect(h.tg.texts(GUEST).at(-1)).toContain('noted');
    expect(h.rows('SELECT home, pack, tool FROM tool_grants')).toEqual([
      { home: `person:${GUEST}`, pack: 'alpha', tool: 'memory' },
    ]);

    // Their grant holds in their home: the next write runs without asking.
    h.model.enqueue(appendMemory('another guest line'), { text: 'noted again' });
    h.tg.text({ userId: GUEST, text: 'and this' });
    await settled(h, 3);
    expect(h.tg.texts(GUEST).at(-1)).toContain('noted again');

    // The owner's home is not theirs: the owner is asked, in the owner's chat.
    h.model.enqueue(appendMemory('owner line'), { text: 'done' });
    h.say('note mine');
    const second = await approvalAsked(h, 2);
    expect(second.question.params.chat_id).toBe(ALLOWED_USER);
    second.press('Deny');
    await settled(h, 5);
    expect(h.logs('approval_denied')).toHaveLength(1);
  });
});

describe('an MCP call in a person’s private chat', () => {
  it('is asked of the owner in the owner’s private chat, naming the person; nothing runs before', async () => {
    await h.start({
      SATCHEL_PACKS: fixturePacks(['beta'], `mcp:\n${fixtureEntry('fx', ['tools: [echo]'])}\n`),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${GUEST}`,
      TOOL_APPROVAL: 'always',
    });
    h.tg.nameUser(GUEST, 'Gwen');
    // The owner has written privately once: that is where they are asked.
    h.model.enqueue({ text: 'hello owner' });
    h.say('hi');
    await settled(h, 1);

    h.model.enqueue(
      { toolCalls: [{ name: 'fx__echo', arguments: { text: 'guest echo' } }] },
      { text: 'echoed' },
    );
    h.tg.text({ userId: GUEST, text: 'echo something' });
    const asked = await approvalAsked(h);
    expect(asked.question.params.chat_id).toBe(ALLOWED_USER);
    expect(asked.text).toContain('fx__echo');
    expect(asked.text).toContain('(Beta Books, for Gwen)');
    // Nothing ran: the model has not been given a result, the guest has no answer.
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(h.tg.texts(GUEST)).toEqual([]);
    expect(
      h.tg.calls('sendMessage').filter((c) => c.params.chat_id === GUEST && isApproval(c)),
    ).toEqual([]);

    // The owner answers it, in their own chat.
    asked.press('Allow once', ALLOWED_USER, ALLOWED_USER);
    await settled(h, 3);
    expect(h.model.chatRequests()).toHaveLength(3);
    expect(toolResults(h.model.chatRequests()[2]!).at(-1)).toContain('guest echo');
    expect(h.tg.texts(GUEST).at(-1)).toContain('echoed');
  });
});
