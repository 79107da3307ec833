import { describe, expect, it, vi } from 'vitest';
import { pass, warn } from '../../src/core/check.ts';
import type { EdgeFactory, IngressPort } from '../../src/core/edge.ts';
import type { Address } from '../../src/core/types.ts';
import { edgesOf } from '../../src/edges.ts';
import { formatChecks } from '../../src/ops/check.ts';
import { runDoctor } from '../../src/ops/doctor.ts';
import { createMemoryChannel } from '../fakes/memory-channel.ts';
import { harnessPerTest } from '../support/harness.ts';

const h = harnessPerTest();
const TO: Address = { platform: 'probe', chatId: '5' };

/**
 * A channel that joins through the edge list alone: what its ingress was asked to do, in
 * order, and the port the core gave it.
 */
function probeEdge() {
  const calls: string[] = [];
  const state = { healthy: true, port: undefined as IngressPort | undefined };
  const channel = createMemoryChannel({ platform: 'probe' });
  const factory: EdgeFactory = {
    platform: 'probe',
    name: 'the probe',
    doctor: {
      local: () => [pass('probe: configured')],
      remote: async (timeoutMs) => [
        warn(`probe: its service did not answer within ${timeoutMs} ms`, 'Start the probe.'),
      ],
    },
    connect: () => ({
      platform: 'probe',
      channel,
      ingress: (port) => {
        state.port = port;
        return {
          ready: () => void calls.push('ready'),
          start: async () => void calls.push('start'),
          stop: async () => void calls.push('stop'),
          health: () => ({ ok: state.healthy, fields: { probe_up: state.healthy } }),
        };
      },
    }),
  };
  return { factory, calls, state, channel };
}

async function healthz() {
  const [started] = h.logs('web_chat_started');
  const response = await fetch(new URL('/healthz', String(started?.url)));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the edge list (app.ts)', () => {
  it('readies, starts, asks for health and stops an edge that joins it, and its turns are answered', async () => {
    const probe = probeEdge();
    await h.start({}, { app: { edges: (config) => [...edgesOf(config), probe.factory] } });
    expect(probe.calls).toEqual(['ready', 'start']);

    // Its health is its own section of /healthz, beside Telegram's; one unhealthy edge makes
    // the whole 503. (Healthy once Telegram's first poll has answered.)
    await vi.waitFor(async () => {
      const healthy = await healthz();
      expect(healthy.status).toBe(200);
      expect(healthy.body).toMatchObject({
        ok: true,
        edges: { tg: { ok: true, mode: 'polling' }, probe: { ok: true, probe_up: true } },
      });
    });
    probe.state.healthy = false;
    const sick = await healthz();
    expect(sick.status).toBe(503);
    expect(sick.body).toMatchObject({
      ok: false,
      edges: { tg: { ok: true, mode: 'polling' }, probe: { ok: false, probe_up: false } },
    });

    // What its ingress hands the port is a turn like any other, answered on its channel.
    probe.state.port!.accept({
      origin: { platform: 'probe', keys: ['p1'] },
      address: TO,
      chatType: 'private',
      senderId: '5',
      receivedAt: Date.now(),
      kind: 'text',
      text: 'hello from the probe',
    });
    await vi.waitFor(() =>
      expect(probe.channel.transcript(TO)).toEqual(['echo: hello from the probe']),
    );

    await h.stop();
    expect(probe.calls).toEqual(['ready', 'start', 'stop']);
    expect(h.logs('satchel_stopped')).toHaveLength(1);
  });

  it("prints an edge's doctor checks: its own with the configuration, its remote ones with the token", async () => {
    const probe = probeEdge();
    await h.start();
    const checks = await runDoctor({
      env: h.env,
      timeoutMs: 2000,
      edges: (config) => [...edgesOf(config), probe.factory],
    });
    const lines = formatChecks(checks).split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(lines[at('probe: configured')]).toBe('✓ probe: configured');
    expect(lines[at('probe: its service')]).toBe(
      '! probe: its service did not answer within 2000 ms',
    );
    expect(lines[at('probe: its service') + 1]).toBe('    fix: Start the probe.');
    // The configuration's checks, then the platforms', then the providers'.
    expect(at('configuration: valid')).toBeLessThan(at('allowlist: 1 user'));
    expect(at('allowlist: 1 user')).toBeLessThan(at('probe: configured'));
    expect(at('probe: configured')).toBeLessThan(at('Telegram: token accepted'));
    expect(at('Telegram: token accepted')).toBeLessThan(at('probe: its service'));
    expect(at('probe: its service')).toBeLessThan(at('openai: key accepted'));
  });
});
