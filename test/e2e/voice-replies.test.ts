/**
 * Voice replies (SPEC §18), end to end through the fake Bot API and the real OpenAI SDK: the
 * answer's text first, then the same answer spoken by TTS_MODEL (the fake model server's
 * `/audio/speech`, a real Ogg/Opus file) and sent with sendVoice through the outbox; the
 * quota gate before the call, a `tts` row with its characters and cost after it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AppOptions } from '../../src/app.ts';
import { MAX_SPEECH_BYTES, SPEECH_LIMIT_MS } from '../../src/turn/voice-reply.ts';
import { SPEECH_OGG } from '../fakes/model-server.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { type HarnessEnv, startWithUsageApi } from '../support/usage-api.ts';

const h = harnessPerTest();

interface TtsRow {
  kind: string;
  provider: string;
  model: string;
  characters: number;
  cost_usd: number | null;
  price_known: number;
  ok: number;
}

const ttsRows = () =>
  h.rows<TtsRow>(
    "SELECT kind, provider, model, characters, cost_usd, price_known, ok FROM usage_events WHERE kind = 'tts' ORDER BY id",
  );
const speech = () => h.model.requests({ kind: 'speech' });
const voices = () => h.tg.sent(ALLOWED_USER).filter((c) => c.method === 'sendVoice');
const methods = () => h.tg.sent(ALLOWED_USER).map((c) => c.method);
const lastText = () => h.tg.texts(ALLOWED_USER).at(-1);

/** Waits for the debug line that says why an answer stayed text. */
const skipped = (reason: string) =>
  vi.waitFor(() => expect(h.logs('voice_reply_skipped').map((l) => l.reason)).toContain(reason));

/** Starts satchel (its /api/usage readable). */
const start = (
  env: HarnessEnv = {},
  app: Pick<AppOptions, 'shutdownGraceMs' | 'outbox' | 'clock'> = {},
) => startWithUsageApi(h, env, app);

/** The spoken answers kept on disk (SATCHEL_HOME/media/voice/<day>/…). */
function spokenFiles(): string[] {
  const dir = path.join(h.home, 'media', 'voice');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/** A speech answer that waits until the test opens it. */
function gate(): { until: Promise<void>; open(): void } {
  let open = () => {};
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { until, open };
}

const failures = () => h.logs('voice_reply_failed').map((l) => l.reason);

describe('/voice on', () => {
  it('sends the text, then the answer spoken as an OGG voice note, booked as tts', async () => {
    const { usage } = await start();
    h.say('/voice');
    await settled(h, 1);
    expect(lastText()).toContain('Voice replies off: answers here are text only (the default');
    h.say('/voice on');
    await settled(h, 2);
    expect(lastText()).toBe('Voice replies on: every answer here also comes as a voice note.');

    h.model.enqueue({ text: 'Water the **basil** today, see [the guide](https://example.com).' });
    h.say('what should I do?');
    await h.tg.waitForCall('sendVoice');
    await settled(h, 3);

    expect(methods()).toEqual(['sendMessage', 'sendMessage', 'sendMessage', 'sendVoice']);
    const voice = voices()[0]!.params.voice as { bytes: Buffer };
    expect(voice.bytes.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(voice.bytes.equals(SPEECH_OGG)).toBe(true);
    const spoken = 'Water the basil today, see the guide.';
    expect(speech()).toHaveLength(1);
    expect(speech()[0]!.body).toEqual({
      model: 'gpt-4o-mini-tts',
      input: spoken,
      voice: 'alloy',
      response_format: 'opus',
    });
    expect(ttsRows()).toEqual([
      {
        kind: 'tts',
        provider: 'openai',
        model: 'gpt-4o-mini-tts',
        characters: spoken.length,
        cost_usd: expect.closeTo((15 * spoken.length) / 1e6, 12),
        price_known: 1,
        ok: 1,
      },
    ]);
    const byKind = (await usage()).by_kind.find((k) => k.kind === 'tts');
    expect(byKind).toMatchObject({ kind: 'tts', calls: 1 });
    expect(byKind?.cost_usd).toBeCloseTo((15 * spoken.length) / 1e6, 9);

    h.say('/voice');
    await settled(h, 4);
    expect(lastText()).toContain('Voice replies on: every answer here also comes as a voice note.');
    expect(lastText()).not.toContain('default');
  });

  it('speaks with TTS_MODEL and TTS_VOICE, and an unpriced one follows UNKNOWN_PRICE', async () => {
    await start({
      VOICE_REPLY: 'always',
      TTS_MODEL: 'openai:my-tts',
      TTS_VOICE: 'verse',
      QUOTA_DAILY_USD: '5',
    });
    h.say('first');
    await settled(h, 1);
    // Under a USD cap an unpriced speaker is refused before the call; the text went out.
    await vi.waitFor(() => expect(h.logs('quota_unpriced')).toHaveLength(1));
    await skipped('quota');
    expect(speech()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: first']);

    // UNKNOWN_PRICE=allow: the call goes ahead, booked with no cost.
    h.env.UNKNOWN_PRICE = 'allow';
    await h.restart();
    h.say('second');
    await h.tg.waitForCall('sendVoice');
    expect(speech()[0]!.body).toMatchObject({ model: 'my-tts', voice: 'verse' });
    expect(ttsRows()).toMatchObject([{ model: 'my-tts', cost_usd: null, price_known: 0 }]);
  });
});

describe('/voice per chat or topic', () => {
  const FORUM = -100777;
  const inTopic = (threadId: number, text: string) =>
    h.tg.text({
      userId: ALLOWED_USER,
      chatId: FORUM,
      chatType: 'supergroup',
      isForum: true,
      threadId,
      text,
    });

  it('is in /help, and speaks only in the topic that asked, into that topic', async () => {
    await start({ GROUP_REPLY: 'all' });
    h.say('/help');
    await settled(h, 1);
    expect(lastText()).toContain('/voice — Answers as voice notes too: /voice on, inbound or off');

    inTopic(10, '/voice on');
    await settled(h, 2);
    inTopic(11, 'quiet topic');
    await settled(h, 3);
    inTopic(10, 'spoken topic');
    const voice = await h.tg.waitForCall('sendVoice');
    await settled(h, 4);
    expect(voice.params).toMatchObject({ chat_id: FORUM, message_thread_id: 10 });
    expect(h.tg.calls('sendVoice')).toHaveLength(1);
    expect(speech().map((r) => r.body.input)).toEqual(['echo: User: spoken topic']);
  });
});

describe('/voice inbound', () => {
  it('answers a voice note with a voice note, and a text with text only', async () => {
    await start((url) => ({ GROQ_API_KEY: 'gsk-test-groq-key-0123456789', GROQ_BASE_URL: url }));
    h.say('/voice inbound');
    await settled(h, 1);
    expect(lastText()).toBe(
      'Voice replies inbound: an answer to a voice message also comes as a voice note.',
    );
    h.say('typed');
    h.tg.addFile('v1', Buffer.from('OggS fake opus bytes'), 'voice/file_1.oga');
    h.model.enqueueTranscription({ text: 'spoken question', duration: 2 });
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await h.tg.waitForCall('sendVoice');
    await settled(h, 3);

    // The conversation's turns run in order: the typed one was done before the voice note's.
    expect(methods()).toEqual(['sendMessage', 'sendMessage', 'sendMessage', 'sendVoice']);
    expect(speech()).toHaveLength(1);
    expect(speech()[0]!.body.input).toMatch(/^echo: \[Voice message, transcribed/);
    expect(ttsRows()).toHaveLength(1);
  });

  it('follows VOICE_REPLY=inbound in a chat without its own setting', async () => {
    await start((url) => ({
      VOICE_REPLY: 'inbound',
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: url,
    }));
    h.say('/voice');
    await settled(h, 1);
    expect(lastText()).toContain('Voice replies inbound: an answer to a voice message');
    expect(lastText()).toContain('(the default, VOICE_REPLY)');
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await h.tg.waitForCall('sendVoice');
    expect(ttsRows()).toHaveLength(1);
  });
});

describe('text only', () => {
  it('sends an answer longer than 4,000 characters as text, with no speech call', async () => {
    await start({ VOICE_REPLY: 'always' });
    const long = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ');
    expect(long.length).toBeGreaterThan(4000);
    h.model.enqueue({ text: long });
    h.say('tell me everything');
    await skipped('too_long');
    await settled(h, 1);
    expect(methods().every((m) => m === 'sendMessage')).toBe(true);
    expect(speech()).toEqual([]);
    expect(ttsRows()).toEqual([]);
  });

  it('makes no speech call once a cap is reached, and the answer is there as text', async () => {
    await start({ VOICE_REPLY: 'always', QUOTA_DAILY_TOKENS: '10' });
    h.say('use up the day');
    await skipped('quota');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: use up the day']);
    expect(h.logs('quota_exceeded')).toHaveLength(1);
    expect(speech()).toEqual([]);
    expect(voices()).toEqual([]);
  });

  it('keeps the text when the speech call fails: one line without a stack, no retry', async () => {
    await start({ VOICE_REPLY: 'always' });
    h.model.enqueueSpeech({ status: 500 });
    h.say('hello');
    await vi.waitFor(() => expect(h.logs('voice_reply_failed')).toHaveLength(1));
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(voices()).toEqual([]);
    expect(speech()).toHaveLength(1);
    const [line] = h.logs('voice_reply_failed');
    expect(line).toMatchObject({ level: 40, model: 'gpt-4o-mini-tts' });
    expect(JSON.stringify(line)).not.toMatch(/stack|\n\s+at /);
    expect(ttsRows()).toMatchObject([{ ok: 0, characters: 0 }]);

    // The next answer is spoken again.
    h.say('again');
    await h.tg.waitForCall('sendVoice');
    expect(speech()).toHaveLength(2);
  });
});

describe('exactly once', () => {
  it('sends the voice note once when sendVoice fails and is tried again', async () => {
    await start({ VOICE_REPLY: 'always' });
    h.tg.fail('sendVoice', { status: 502 });
    h.say('hello');
    await h.tg.waitForCall('sendVoice', (c) => !c.failed);
    await settled(h, 1);
    expect(h.tg.calls('sendVoice').map((c) => !!c.failed)).toEqual([true, false]);
    expect(voices()).toHaveLength(1);
    expect(speech()).toHaveLength(1);
  });

  it('sends a voice note left unsent by a stop once after the restart, and never speaks twice', async () => {
    // Short waits: the stop finds the row still failing and leaves it pending.
    await start(
      { VOICE_REPLY: 'always' },
      { shutdownGraceMs: 300, outbox: { retryDelaysMs: [50, 50] } },
    );
    h.tg.failAlways('sendVoice', { status: 502 });
    h.say('hello');
    await vi.waitFor(() =>
      expect(
        h.rows("SELECT 1 FROM outbox WHERE kind = 'media' AND status = 'pending'"),
      ).toHaveLength(1),
    );
    await h.tg.waitForCall('sendVoice');
    await h.stop();
    h.tg.clearFaults();
    await h.restart();
    await h.tg.waitForCall('sendVoice', (c) => !c.failed);
    await settled(h, 1);
    await h.restart();
    await settled(h, 1);

    expect(voices()).toHaveLength(1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(speech()).toHaveLength(1);
    expect(ttsRows()).toHaveLength(1);
    // Kept through the restarts while its row was pending; removed once sent.
    expect(spokenFiles()).toEqual([]);
  });
});

describe('never holding up the chat (SPEC §18)', () => {
  it('answers the next message while a speech call hangs, and cuts that call off at 20 s', async () => {
    const clock = new JumpClock();
    // The provider's own timeout is far away: only satchel's 20 s can end the call.
    await start({ VOICE_REPLY: 'always', LLM_TIMEOUT_MS: '120000' }, { clock });
    h.model.enqueueSpeech({ until: gate().until });
    h.say('one');
    await vi.waitFor(() => expect(speech()).toHaveLength(1));
    h.say('two');
    await settled(h, 2);
    await h.tg.waitForCall('sendVoice');
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: one', 'echo: two']);
    expect(speech().map((r) => r.body.input)).toEqual(['echo: one', 'echo: two']);

    // The clock also runs in real time (well under 5 s of it here): 15 s on, the call is open.
    clock.advance(SPEECH_LIMIT_MS - 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(speech()[0]!.aborted).toBe(false);
    expect(failures()).toEqual([]);
    clock.advance(5_000);
    await vi.waitFor(() => expect(speech()[0]!.aborted).toBe(true));
    await vi.waitFor(() => expect(failures()).toEqual(['no speech within 20 s']));
    expect(methods()).toEqual(['sendMessage', 'sendMessage', 'sendVoice']);
    expect(ttsRows().map((r) => r.ok)).toEqual([1, 0]);
  });

  it('drops a voice note that was not ready when the next answer went out, never sends it after', async () => {
    await start({ VOICE_REPLY: 'always' });
    const late = gate();
    h.model.enqueueSpeech({ until: late.until });
    h.say('one');
    await vi.waitFor(() => expect(speech()).toHaveLength(1));
    h.say('two');
    await h.tg.waitForCall('sendVoice');
    await settled(h, 2);
    late.open();
    await vi.waitFor(() => expect(h.logs('voice_reply_dropped')).toHaveLength(1));
    await settled(h, 2);

    // One's answer, two's answer, two's voice note: one's note never comes after them.
    expect(methods()).toEqual(['sendMessage', 'sendMessage', 'sendVoice']);
    expect(speech()).toHaveLength(2);
    expect(ttsRows().map((r) => r.ok)).toEqual([1, 1]);
    expect(h.logs('voice_reply_dropped')[0]).toMatchObject({ level: 30 });
    expect(spokenFiles()).toEqual([]);
  });
});

describe('what a speech server sends back', () => {
  it('cuts a 50 MB speech answer off past 10 MB as it streams, and sends no voice note', async () => {
    // The provider's idle timeout is far away: only the size limit can end the answer.
    await start({ VOICE_REPLY: 'always', LLM_TIMEOUT_MS: '60000' });
    h.model.enqueueSpeech({ streamBytes: 50 * 1024 * 1024 });
    h.say('hello');
    await vi.waitFor(() => expect(failures()).toHaveLength(1));
    await settled(h, 1);

    expect(failures()[0]).toBe(`openai sent more than ${MAX_SPEECH_BYTES} bytes of speech`);
    await vi.waitFor(() => expect(speech()[0]!.aborted).toBe(true));
    // The client stopped reading: the server got to write a little past the limit, not 50 MB.
    expect(speech()[0]!.bytesSent).toBeLessThan(2 * MAX_SPEECH_BYTES);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(voices()).toEqual([]);
    expect(spokenFiles()).toEqual([]);
  });

  it('does not send 3 KB of random bytes as a voice note: the answer stays text', async () => {
    await start({ VOICE_REPLY: 'always' });
    h.model.enqueueSpeech({ body: randomBytes(3 * 1024) });
    h.say('hello');
    await vi.waitFor(() => expect(failures()).toHaveLength(1));
    await settled(h, 1);

    expect(failures()[0]).toBe('not an Ogg/Opus file (3072 bytes)');
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['echo: hello']);
    expect(voices()).toEqual([]);
    expect(spokenFiles()).toEqual([]);
  });

  it('removes a spoken file once sent, and at start one no pending row names', async () => {
    await start({ VOICE_REPLY: 'always' });
    h.say('hello');
    await h.tg.waitForCall('sendVoice');
    await settled(h, 1);
    await vi.waitFor(() => expect(spokenFiles()).toEqual([]));

    await h.stop();
    const stale = path.join(h.home, 'media', 'voice', '2026-01-01');
    mkdirSync(stale, { recursive: true });
    writeFileSync(path.join(stale, 'left-by-a-crash.ogg'), SPEECH_OGG);
    await h.restart();
    expect(spokenFiles()).toEqual([]);
    expect(readdirSync(path.join(h.home, 'media', 'voice'))).toEqual([]);
    expect(h.logs('voice_files_pruned')).toMatchObject([{ files: 1 }]);
  });
});
