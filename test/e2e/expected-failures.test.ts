/**
 * Failures the operator expects (a missing optional key for voice, a wrong bot token, a
 * second poller on the same token) are one log line with the message and a code, and no
 * stack trace.
 */
import { describe, expect, it, vi } from 'vitest';
import { NO_STT } from '../../src/inbound/media.ts';
import type { FakeTelegram } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, harnessPerTest, type LogLine, settled } from '../support/harness.ts';

const h = harnessPerTest();

/** The one line of `event`, once it is logged. */
async function oneLine(event: string): Promise<LogLine> {
  await vi.waitFor(() => expect(h.logs(event)).toHaveLength(1), { timeout: 10_000 });
  return h.logs(event)[0]!;
}

/** Every `stack` anywhere in a logged value (the error, its causes). */
function stacksIn(value: unknown, depth = 0): string[] {
  if (!value || typeof value !== 'object' || depth > 8) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === 'stack' ? [String(v)] : stacksIn(v, depth + 1),
  );
}

const refuseTelegram = (status: 401 | 409, description: string) => (tg: FakeTelegram) => {
  tg.failAlways('getMe', { status, description });
  tg.failAlways('getUpdates', { status, description });
};

describe('expected failures in the log', () => {
  it('logs a voice note without a Groq key as one turn_failed warning, without a stack', async () => {
    await h.start();
    h.tg.addFile('v1', Buffer.from('OggS'), 'voice/file_1.oga');
    h.tg.voice({ userId: ALLOWED_USER, fileId: 'v1' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([NO_STT]);
    const line = await oneLine('turn_failed');
    expect(line.level).toBe(40);
    expect(line.err).toMatchObject({
      code: 'media_error',
      message: 'no speech-to-text configured',
    });
    expect(stacksIn(line)).toEqual([]);
  });

  it('logs a wrong bot token as one tg_polling_stopped line with the 401, without a stack', async () => {
    await h.start({}, { beforeStart: refuseTelegram(401, 'Unauthorized') });
    const line = await oneLine('tg_polling_stopped');
    expect(line.hint).toContain('TELEGRAM_BOT_TOKEN');
    expect(line.err).toMatchObject({ code: 'channel_error', status: 401 });
    expect(String((line.err as { message: string }).message)).toContain('Unauthorized');
    expect(stacksIn(line)).toEqual([]);
  });

  it('logs a second poller (409) as one tg_polling_stopped line, without a stack', async () => {
    await h.start(
      {},
      { beforeStart: refuseTelegram(409, 'Conflict: terminated by other getUpdates request') },
    );
    const line = await oneLine('tg_polling_stopped');
    expect(line.hint).toContain('Another process is polling');
    expect(line.err).toMatchObject({ code: 'channel_error', status: 409 });
    expect(String((line.err as { message: string }).message)).toContain('Conflict');
    expect(stacksIn(line)).toEqual([]);
  });
});
