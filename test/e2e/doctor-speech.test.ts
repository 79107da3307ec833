/**
 * `satchel doctor` says who transcribes voice (SPEC §1, STT_PROVIDER): the provider, model and
 * address, or that voice messages are off and how to turn them on; a speech-to-text server of
 * its own (STT_BASE_URL) is asked for its model list, against a strict fake.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Check, formatChecks } from '../../src/ops/check.ts';
import { runDoctor } from '../../src/ops/doctor.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';

let chat: FakeModel;
let whisper: FakeModel;
let home: string;
let base: Record<string, string>;

beforeEach(async () => {
  chat = await FakeModel.start();
  whisper = await FakeModel.start();
  home = mkdtempSync(path.join(tmpdir(), 'satchel-doctor-stt-'));
  base = {
    SATCHEL_HOME: path.join(home, 'data'),
    SATCHEL_PACKS: fixturePacks(['alpha']),
    OPENAI_API_KEY: TEST_OPENAI_KEY,
    OPENAI_BASE_URL: `${chat.url}/v1`,
    LLM_MODEL: 'gpt-4.1-mini',
    DASHBOARD_PORT: '0',
  };
});

afterEach(async () => {
  await chat.stop();
  await whisper.stop();
  rmSync(home, { recursive: true, force: true });
});

/** The doctor's voice line, and the whole checklist as printed. */
async function voiceLine(env: Record<string, string>): Promise<{ check: Check; out: string }> {
  const checks = await runDoctor({ env: { ...base, ...env }, timeoutMs: 5000 });
  const check = checks.find((c) => c.title.startsWith('voice messages:'));
  if (!check) throw new Error(`no voice line in:\n${formatChecks(checks)}`);
  return { check, out: formatChecks(checks) };
}

describe('doctor on speech to text', () => {
  it('warns that voice is off and says how to turn it on', async () => {
    const { check, out } = await voiceLine({});
    expect(check).toMatchObject({
      status: 'warn',
      title: 'voice messages: off (no speech-to-text is set up)',
    });
    expect(check.fix).toContain('GROQ_API_KEY');
    expect(check.fix).toContain('STT_PROVIDER=openai with STT_BASE_URL');
    expect(out).toContain('! voice messages: off');
  });

  it('says off without a warning when STT_PROVIDER=off says so', async () => {
    const { check } = await voiceLine({ STT_PROVIDER: 'off', GROQ_API_KEY: 'gsk' });
    expect(check).toMatchObject({
      status: 'pass',
      title: 'voice messages: off (STT_PROVIDER=off)',
    });
  });

  it('names the provider, model and address; the model is checked on the provider', async () => {
    const { check, out } = await voiceLine({ STT_PROVIDER: 'openai' });
    expect(check).toMatchObject({
      status: 'pass',
      title: `voice messages: transcribed by openai gpt-4o-mini-transcribe at ${chat.url}/v1`,
    });
    // The chat server does not list it: the providers' check says so, naming STT_MODEL.
    expect(out).toContain('does not offer gpt-4o-mini-transcribe');
    expect(out).toContain('Set STT_MODEL to a model openai lists');
    chat.setModels('openai', ['gpt-4.1-mini', 'gpt-4o-mini-transcribe']);
    expect((await voiceLine({ STT_PROVIDER: 'openai' })).out).not.toContain('does not offer');
  });

  it('asks a server of its own for its models, with its own key', async () => {
    whisper.setModels('openai', ['Systran/faster-whisper-small']);
    whisper.requireKey('openai', 'local-key');
    const own = {
      STT_PROVIDER: 'openai',
      STT_BASE_URL: `${whisper.url}/v1`,
      STT_API_KEY: 'local-key',
      STT_MODEL: 'Systran/faster-whisper-small',
    };
    const { check, out } = await voiceLine(own);
    expect(check).toMatchObject({
      status: 'pass',
      title: `voice messages: transcribed by openai Systran/faster-whisper-small at ${whisper.url}/v1; key accepted`,
    });
    expect(out).not.toContain('does not offer');
    expect(whisper.requests().map((r) => r.headers.authorization)).toEqual(['Bearer local-key']);

    const wrong = await voiceLine({ ...own, STT_MODEL: 'whisper-1' });
    expect(wrong.check).toMatchObject({
      status: 'fail',
      title: `voice messages: ${whisper.url}/v1 does not offer whisper-1`,
    });
    expect(wrong.check.fix).toContain('Systran/faster-whisper-small');

    await whisper.stop();
    const down = await voiceLine(own);
    expect(down.check.status).toBe('fail');
    expect(down.check.fix).toContain('STT_BASE_URL');
  });
});
