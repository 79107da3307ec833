/**
 * The whole core (pipeline, router, agent, outbox, ledger) in process: in-memory edges, the
 * fake clock and a scripted chat model — no HTTP, no Telegram. For the turn stages' tests
 * (test/turn); what only an end-to-end test can prove is in test/e2e.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { Edge } from '../../src/core/edge.ts';
import type { ChatModel, ChatRequest } from '../../src/core/ports.ts';
import type { Address, InboundEvent, ToolCall } from '../../src/core/types.ts';
import { type Core, type CoreOptions, createCore } from '../../src/core-app.ts';
import { createMemoryChannel, type MemoryChannel } from '../fakes/memory-channel.ts';
import { FakeClock } from './fake-clock.ts';
import { fixturePacks } from './harness.ts';

/** One model call's scripted reply: an answer, or tool calls (their ids are made up). */
export type Step = string | { calls: Omit<ToolCall, 'id'>[] };

/** A chat model that follows a script (then answers `ok`), and keeps every request. */
export function scriptedModel(steps: Step[]): { model: ChatModel; requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  let id = 0;
  const model: ChatModel = {
    info: { provider: 'openai', model: 'gpt-4.1-mini', acceptsImages: false },
    async complete(request, { onText }) {
      requests.push(structuredClone(request));
      const step = steps.shift() ?? 'ok';
      const usage = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 };
      if (typeof step !== 'string')
        return { text: '', toolCalls: step.calls.map((c) => ({ ...c, id: `c${++id}` })), usage };
      onText?.(step);
      return { text: step, toolCalls: [], usage };
    },
  };
  return { model, requests };
}

export interface CoreRig {
  core: Core;
  clock: FakeClock;
  /** Each memory edge's channel, by platform. */
  channels: Record<string, MemoryChannel>;
  /** The origin keys each edge was asked to acknowledge, by platform. */
  acked: Record<string, string[]>;
  requests: ChatRequest[];
  /** The core's log lines (from debug up), parsed. */
  logs: Record<string, unknown>[];
  /** Leaves the core out of the stop after the test (for a test that stops it itself). */
  release(): void;
}

export interface CoreRigOptions {
  /** SATCHEL_PACKS; default: the `alpha` fixture pack. */
  packs?: string;
  steps?: Step[];
  /** One memory edge per platform; default `mem`. */
  platforms?: string[];
  gate?: Edge['gate'];
  clock?: FakeClock;
  /** More environment (TOOL_APPROVAL, …) over the rig's. */
  env?: Record<string, string>;
  core?: Pick<CoreOptions, 'shutdownGraceMs' | 'mcpHub'>;
}

const homes: string[] = [];
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.stop(async () => {});
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** The core on memory edges, its home removed and the core stopped after the test. */
export function coreRig(options: CoreRigOptions = {}): CoreRig {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-core-rig-'));
  homes.push(home);
  const config = parseConfig({
    SATCHEL_HOME: home,
    SATCHEL_PACKS: options.packs ?? fixturePacks(['alpha']),
    OPENAI_API_KEY: 'sk-test-stages-0123456789',
    BATCH_WINDOW_MS: '0',
    SATCHEL_TIMEZONE: 'UTC',
    DASHBOARD_PORT: '0',
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const clock = options.clock ?? new FakeClock();
  const { model, requests } = scriptedModel(options.steps ?? []);
  const channels: Record<string, MemoryChannel> = {};
  const acked: Record<string, string[]> = {};
  const logs: Record<string, unknown>[] = [];
  const edges = (options.platforms ?? ['mem']).map((platform) => ({
    platform,
    name: platform,
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
    ...options.core,
    clock,
    chatModel: model,
    logDestination: { write: (line: string) => void logs.push(JSON.parse(line)) },
  });
  cores.push(core);
  const release = () => void cores.splice(cores.indexOf(core), 1);
  return { core, clock, channels, acked, requests, logs, release };
}

/** The chat the rig's events come from unless told: chat 7 on the `mem` edge. */
export const MEM_CHAT: Address = { platform: 'mem', chatId: '7' };

let nextKey = 1;
/** A private text message from user 7, with a fresh origin key. */
export function textEvent(body: string, to: Address = MEM_CHAT): InboundEvent {
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

/** Lets the lanes run what was accepted, then waits until they and the outbox are idle. */
export async function drained(core: Core): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await core.pipeline.idle();
  await core.outbox.idle();
}
