/**
 * Titles written by the model (SPEC §16): after a web conversation's first exchange, one
 * short call names it (booked in the ledger under that turn, redacted at rest like any
 * title); the first line names it until then; a title the owner chose is never replaced;
 * the dashboard's recent turns name the conversation by its title.
 */
import { describe, expect, it } from 'vitest';
import { printUsage } from '../../src/cli/usage-report.ts';
import { systemText, userTexts } from '../fakes/model-requests.ts';
import type { ChatClient } from '../support/chat-client.ts';
import { recordingIo } from '../support/cli-io.ts';
import { TEST_OPENAI_KEY } from '../support/harness.ts';
import { webPagesPerTest } from '../support/web-pages.ts';

const web = webPagesPerTest();
const { h, page } = web;

/** The app, and a page on its default conversation. */
async function start(): Promise<ChatClient> {
  await web.start();
  return page();
}

describe('titles the model writes', () => {
  it('names a conversation after its first exchange, with one booked call, once', async () => {
    const c = await start();
    h.model.enqueueTitle({ text: '"Planting in March."', usage: { input: 40, output: 4 } });
    await c.send('what should I plant in March?');
    await c.waitForBot(1);
    await c.waitFor(() => c.events.find((e) => e.type === 'titled'), 'the titled event');
    const [listed] = await c.conversations();
    expect(listed!.title).toBe('Planting in March');

    // The request: the title instructions, and the exchange as data.
    const [request, ...more] = h.model.titleRequests();
    expect(more).toEqual([]);
    expect(systemText({ ...request!, kind: 'chat' })).toMatch(/^Name this conversation/);
    expect(userTexts({ ...request!, kind: 'chat' })).toEqual([
      'User: what should I plant in March?\n\nAssistant: echo: what should I plant in March?',
    ]);
    expect(request!.model).toBe('gpt-4.1-mini');

    // Booked under the turn it follows, as any call.
    const rows = h.rows<{ turn_id: string; input_tokens: number; output_tokens: number }>(
      "SELECT turn_id, input_tokens, output_tokens FROM usage_events WHERE kind = 'llm' ORDER BY id",
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({ turn_id: rows[0]!.turn_id, input_tokens: 40, output_tokens: 4 });
    const usage = await fetch(new URL('/api/usage', c.base), { headers: { cookie: c.cookie } });
    const turns = ((await usage.json()) as { recent_turns: { chat: string; calls: number }[] })
      .recent_turns;
    expect(turns).toEqual([expect.objectContaining({ chat: 'Planting in March', calls: 2 })]);
    // `satchel usage` names it so too.
    const io = recordingIo({ SATCHEL_HOME: h.home, SATCHEL_TIMEZONE: 'UTC' }, h.home);
    expect(await printUsage(io, { days: 30, json: false, now: Date.now() })).toBe(0);
    expect(io.out()).toContain('Planting in March');
    expect(io.out()).not.toContain(listed!.id);

    // The next exchange asks no title again.
    await c.send('and in April?');
    await c.waitForBot(2);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(h.model.titleRequests()).toHaveLength(1);
  });

  it('never replaces a title the owner chose, and keeps a title redacted at rest', async () => {
    const c = await start();
    const [first] = await c.conversations();
    expect((await c.post('rename', { conversation: first!.id, title: 'Garden' })).status).toBe(200);
    await c.send('hello');
    await c.waitForBot(1);
    // The next conversation gets the model's title, which held the configured key.
    const made = await c.newConversation();
    const other = await page(made.id);
    h.model.enqueueTitle({ text: `Key ${TEST_OPENAI_KEY} setup` });
    await other.send('hi there');
    await other.waitForBot(1);
    await other.waitFor(() => other.events.find((e) => e.type === 'titled'), 'the titled event');

    expect(h.model.titleRequests()).toHaveLength(1);
    const titles = h.rows<{ id: string; title: string }>('SELECT id, title FROM web_conversations');
    expect(titles.find((t) => t.id === first!.id)!.title).toBe('Garden');
    const named = titles.find((t) => t.id === made.id)!.title;
    expect(named).not.toContain(TEST_OPENAI_KEY);
    expect(named).toMatch(/^Key .+ setup$/);
  });

  it('keeps the first line when the title call fails, and tries again after the next answer', async () => {
    const c = await start();
    // Refused (a 400 is not retried): the call failed for good.
    h.model.enqueueTitle({ text: '', status: 400 });
    await c.send('first line here');
    await c.waitForBot(1);
    await expect.poll(() => h.model.titleRequests().length).toBe(1);
    await expect.poll(() => h.logs('web_title_failed').length).toBe(1);
    expect((await c.conversations())[0]!.title).toBe('first line here');
    h.model.enqueueTitle({ text: 'A better title' });
    await c.send('more');
    await c.waitForBot(2);
    await c.waitFor(() => c.events.find((e) => e.type === 'titled'), 'the titled event');
    expect((await c.conversations())[0]!.title).toBe('A better title');
  });
});
