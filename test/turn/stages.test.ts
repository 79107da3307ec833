/**
 * The turn stages on the in-memory channel with the fake clock: the whole core (pipeline,
 * router, agent, outbox, ledger) over a scripted chat model, in process — no HTTP, no
 * Telegram. What only an end-to-end test can prove (the Bot API, the SDKs) is in test/e2e.
 */
import { describe, expect, it } from 'vitest';
import { plain } from '../../src/outbound/compose.ts';
import { jobRun } from '../../src/scheduler/job-edge.ts';
import { coreRig, drained, textEvent as text } from '../support/core-rig.ts';

describe('a turn on the in-memory channel', () => {
  it('answers, renders with the channel, and acknowledges the origin with the reply', async () => {
    const { core, channels, acked, requests } = coreRig({ steps: ['Water it **weekly**.'] });
    const event = text('how often do I water the fern?');
    core.pipeline.accept(event);
    await drained(core);

    expect(channels.mem!.transcript({ platform: 'mem', chatId: '7' })).toEqual([
      'Water it weekly.',
    ]);
    // Rendered by the memory channel's renderer (Telegram's HTML): bold is a tag.
    expect(channels.mem!.messages({ platform: 'mem', chatId: '7' })[0]?.source.text).toBe(
      'Water it <b>weekly</b>.',
    );
    expect(acked.mem).toEqual(event.origin.keys);
    // The user's message, then the system prompt's clock line: the fake clock's time, in UTC.
    const [said, clock] = requests[0]!.messages.slice(-2);
    expect(said!.content).toContain('how often do I water the fern?');
    expect(clock).toEqual({ role: 'system', content: '[Now: 2026-11-22 Sunday 12:00 UTC]' });
  });

  it('a gate that denies sends its reply and nothing reaches the model', async () => {
    const { core, channels, acked, requests } = coreRig({
      gate: () => ({ deny: true, reply: plain('not for you') }),
    });
    const event = text('hello');
    core.pipeline.accept(event);
    await drained(core);
    expect(channels.mem!.transcript({ platform: 'mem', chatId: '7' })).toEqual(['not for you']);
    expect(requests).toHaveLength(0);
    expect(acked.mem).toEqual(event.origin.keys);
  });

  it('serves two edges from one core: each answer goes to its own channel', async () => {
    const { core, channels, requests } = coreRig({
      steps: ['to mem', 'to web'],
      platforms: ['mem', 'web'],
    });
    core.pipeline.accept(text('one', { platform: 'mem', chatId: '7' }));
    await drained(core);
    core.pipeline.accept(text('two', { platform: 'web', chatId: '7' }));
    await drained(core);
    expect(channels.mem!.transcript({ platform: 'mem', chatId: '7' })).toEqual(['to mem']);
    expect(channels.web!.transcript({ platform: 'web', chatId: '7' })).toEqual(['to web']);
    expect(requests).toHaveLength(2);
    // Same chat id, other platform: its own conversation, its own session.
    expect(requests[1]!.messages.map((m) => m.content).join('\n')).not.toContain('one');
  });

  it('runs a job that enters through accept: delivered once, settled by the job edge', async () => {
    const { core, channels, requests } = coreRig({ steps: ['Time to water the fern.'] });
    const to = { platform: 'mem', chatId: '7' };
    core.router.resolve(to, 'alpha');
    const finished: string[] = [];
    core.events.on('job_finished', ({ outcome }) => finished.push(outcome));
    const due = {
      id: 'j1',
      pack: 'alpha',
      platform: 'mem',
      chatId: '7',
      threadId: null,
      prompt: 'remind about the fern',
      skill: null,
      manifestKey: null,
      dueAt: Date.UTC(2026, 10, 22, 12, 0, 0),
    };
    core.pipeline.accept({
      origin: { platform: 'job', keys: [`j1:${due.dueAt}`] },
      address: to,
      chatType: 'private',
      senderId: '0',
      receivedAt: due.dueAt,
      kind: 'job',
      job: jobRun(due as never),
    });
    await drained(core);
    expect(channels.mem!.transcript(to)).toEqual(['Time to water the fern.']);
    expect(finished).toEqual(['delivered']);
    // Its own session: the job's prompt, not the chat's history.
    expect(requests[0]!.messages.at(-2)!.content).toContain('remind about the fern');
  });

  it('a job whose answer is [SILENT] sends nothing', async () => {
    const { core, channels } = coreRig({ steps: ['[SILENT]'] });
    const to = { platform: 'mem', chatId: '7' };
    const finished: string[] = [];
    core.events.on('job_finished', ({ outcome }) => finished.push(outcome));
    const dueAt = Date.UTC(2026, 10, 22, 12, 0, 0);
    core.pipeline.accept({
      origin: { platform: 'job', keys: [`j2:${dueAt}`] },
      address: to,
      chatType: 'private',
      senderId: '0',
      receivedAt: dueAt,
      kind: 'job',
      job: jobRun({
        id: 'j2',
        pack: 'alpha',
        prompt: 'anything new?',
        skill: null,
        manifestKey: null,
        dueAt,
      } as never),
    });
    await drained(core);
    expect(channels.mem!.transcript(to)).toEqual([]);
    expect(finished).toEqual(['silent']);
  });
});
