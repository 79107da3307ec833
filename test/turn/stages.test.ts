/**
 * The turn stages on the in-memory channel with the fake clock: the whole core (pipeline,
 * router, agent, outbox, ledger) over a scripted chat model, in process — no HTTP, no
 * Telegram. What only an end-to-end test can prove (the Bot API, the SDKs) is in test/e2e.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { Edge } from '../../src/core/edge.ts';
import type { ChatModel, ChatRequest } from '../../src/core/ports.ts';
import type { Address, InboundEvent } from '../../src/core/types.ts';
import { type Core, createCore } from '../../src/core-app.ts';
import { plain } from '../../src/outbound/compose.ts';
import { jobRun } from '../../src/scheduler/job-edge.ts';
import { createMemoryChannel, type MemoryChannel } from '../fakes/memory-channel.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { fixturePacks } from '../support/harness.ts';

/** A chat model that answers from a script and keeps every request. */
function scriptedModel(answers: string[]) {
  const requests: ChatRequest[] = [];
  const model: ChatModel = {
    info: { provider: 'openai', model: 'gpt-4.1-mini', acceptsImages: false },
    async complete(request, { onText }) {
      requests.push(structuredClone(request));
      const text = answers.shift() ?? 'ok';
      onText?.(text);
      return {
        text,
        toolCalls: [],
        usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
      };
    },
  };
  return { model, requests };
}

const homes: string[] = [];
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.stop(async () => {});
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

interface Rig {
  core: Core;
  clock: FakeClock;
  channels: Record<string, MemoryChannel>;
  acked: Record<string, string[]>;
  requests: ChatRequest[];
}

/** The core on memory edges (`mem`, and more when named), one pack installed. */
function rig(options: { answers?: string[]; platforms?: string[]; gate?: Edge['gate'] } = {}): Rig {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-stages-'));
  homes.push(home);
  const config = parseConfig(
    {
      SATCHEL_HOME: home,
      SATCHEL_PACKS: fixturePacks(['alpha']),
      OPENAI_API_KEY: 'sk-test-stages-0123456789',
      BATCH_WINDOW_MS: '0',
      SATCHEL_TIMEZONE: 'UTC',
      DASHBOARD_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    { telegram: false },
  );
  const clock = new FakeClock();
  const { model, requests } = scriptedModel(options.answers ?? []);
  const channels: Record<string, MemoryChannel> = {};
  const acked: Record<string, string[]> = {};
  const edges = (options.platforms ?? ['mem']).map((platform) => ({
    connect: (): Edge => {
      channels[platform] = createMemoryChannel({ platform });
      acked[platform] = [];
      return {
        platform,
        channel: channels[platform],
        ...(options.gate ? { gate: options.gate } : {}),
        acknowledge: (keys) => acked[platform]!.push(...keys),
      };
    },
  }));
  const core = createCore(config, edges, {
    clock,
    chatModel: model,
    logDestination: { write: () => {} },
  });
  cores.push(core);
  return { core, clock, channels, acked, requests };
}

let nextKey = 1;
function text(body: string, to: Address = { platform: 'mem', chatId: '7' }): InboundEvent {
  return {
    origin: { platform: to.platform, keys: [`m${nextKey++}`] },
    address: to,
    chatType: 'private',
    senderId: '7',
    receivedAt: 0,
    kind: 'text',
    text: body,
  };
}

/** Lets the lanes run what was accepted, then waits until they are idle. */
async function drained(core: Core): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await core.pipeline.idle();
  await core.outbox.idle();
}

describe('a turn on the in-memory channel', () => {
  it('answers, renders with the channel, and acknowledges the origin with the reply', async () => {
    const { core, channels, acked, requests } = rig({ answers: ['Water it **weekly**.'] });
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
    const last = requests[0]!.messages.at(-1)!;
    expect(last.content).toContain('how often do I water the fern?');
  });

  it('a gate that denies sends its reply and nothing reaches the model', async () => {
    const { core, channels, acked, requests } = rig({
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
    const { core, channels, requests } = rig({
      answers: ['to mem', 'to web'],
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
    const { core, channels, requests } = rig({ answers: ['Time to water the fern.'] });
    const to = { platform: 'mem', chatId: '7' };
    core.router.resolve(to, 'alpha');
    const finished: string[] = [];
    core.events.on('job_finished', ({ outcome }) => finished.push(outcome));
    const due = {
      id: 'j1',
      pack: 'alpha',
      platform: 'mem',
      chatId: 7,
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
    expect(requests[0]!.messages.at(-1)!.content).toContain('remind about the fern');
  });

  it('a job whose answer is [SILENT] sends nothing', async () => {
    const { core, channels } = rig({ answers: ['[SILENT]'] });
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
