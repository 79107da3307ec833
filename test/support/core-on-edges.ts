/**
 * The whole core in process on the edges a test gives (core-rig.ts makes memory edges itself),
 * for tests of what a channel or the store needs from it: a home
 * (fresh, or one a test prepared), the fixture packs, the given edges, the fake clock and the
 * pack test's scripted chat model (each call answers with the next step: a tool call or the
 * final answer). No HTTP, no Telegram.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { EdgeFactory } from '../../src/core/edge.ts';
import { type Core, createCore } from '../../src/core-app.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/pack-test/scripted-model.ts';
import { FakeClock } from './fake-clock.ts';
import { fixturePacks } from './harness.ts';

export interface CoreRig {
  core: Core;
  clock: FakeClock;
  /** The chat model: `script(steps)` before each turn. */
  model: ScriptedModel;
  home: string;
}

export interface CoreRigOptions {
  edges: readonly EdgeFactory[];
  /** Fixture packs to install (default `alpha`). */
  packs?: string[];
  /** A home a test prepared (its database is migrated on open); default a fresh one. */
  home?: string;
}

/**
 * A maker of core rigs, each stopped and its home removed after the test that made it. Call
 * it at a file's top level (it registers its own afterEach).
 */
export function coreRigs(): (options: CoreRigOptions) => CoreRig {
  const made: { core: Core; home: string }[] = [];
  afterEach(async () => {
    for (const { core, home } of made.splice(0)) {
      await core.stop(async () => {});
      rmSync(home, { recursive: true, force: true });
    }
  });
  return (options) => {
    const home = options.home ?? mkdtempSync(path.join(tmpdir(), 'satchel-core-rig-'));
    const config = parseConfig({
      SATCHEL_HOME: home,
      SATCHEL_PACKS: fixturePacks(options.packs ?? ['alpha']),
      OPENAI_API_KEY: 'sk-test-core-rig-0123456789',
      BATCH_WINDOW_MS: '0',
      SATCHEL_TIMEZONE: 'UTC',
      DASHBOARD_PORT: '0',
      LOG_LEVEL: 'silent',
      // The scripted model has no price: a pack's USD cap must not refuse it.
      UNKNOWN_PRICE: 'allow',
    });
    const clock = new FakeClock();
    const model = createScriptedModel();
    const core = createCore(config, options.edges, {
      clock,
      chatModel: model.model,
      logDestination: { write: () => {} },
    });
    made.push({ core, home });
    return { core, clock, model, home };
  };
}

export { drained } from './core-rig.ts';
