import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { TelegramApiError } from '../../src/telegram/errors.ts';

const TOKEN = '123456:SECRET-bot-token';
const KEY = 'sk-live-abcdef123456';

function capture(level = 'info') {
  const lines: string[] = [];
  const log = createLogger({
    level,
    secrets: [TOKEN, KEY, undefined],
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { log, lines };
}

describe('logging', () => {
  it('redacts tokens, keys and authorization headers wherever they appear', () => {
    const { log, lines } = capture();
    log.info({ token: 'anything', apiKey: 'x', headers: { authorization: 'Bearer y' } }, 'keys');
    log.error(
      { event: 'tg_send_failed', err: new Error(`POST http://127.0.0.1:8081/bot${TOKEN}/x`) },
      'failed',
    );
    log.warn({ url: `http://127.0.0.1:8082/?key=${KEY}`, nested: { deep: [KEY] } }, 'url');
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain('Bearer y');
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({ token: '[redacted]', apiKey: '[redacted]' });
    expect(second.err.message).toBe('POST http://127.0.0.1:8081/bot[redacted]/x');
  });

  it('redacts secrets it was not told about by their shape, in fields and in the message', () => {
    const { log, lines } = capture();
    const pasted = `7012345678:AAH${'x'.repeat(32)}`;
    const groq = 'gsk_0123456789abcdefghijABCDEFGHIJ';
    log.info({ text: `here is my bot token ${pasted}`, error: `401 for ${groq}` }, `saw ${pasted}`);
    log.warn({ event: 'probe' }, 'header was Authorization: Bearer abcdefgh12345678');
    const all = lines.join('\n');
    expect(all).not.toContain(pasted);
    expect(all).not.toContain(groq);
    expect(all).not.toContain('abcdefgh12345678');
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      text: 'here is my bot token [redacted]',
      error: '401 for [redacted]',
      msg: 'saw [redacted]',
    });
    expect(second.msg).toBe('header was Authorization: Bearer [redacted]');
  });

  it('keeps debug lines out at info', () => {
    const { log, lines } = capture('info');
    log.debug({ text: 'private words' }, 'message text');
    expect(lines).toEqual([]);
  });

  it('logs an error with its class, message, stack, fields and cause, secrets scrubbed', () => {
    const { log, lines } = capture();
    const network = new TypeError(`fetch failed for http://127.0.0.1:8082/?key=${KEY}`);
    const failure = new ProviderError('openai', `401 with key ${KEY}`, {
      status: 401,
      transient: false,
      cause: network,
    });
    log.error({ event: 'provider_error', err: failure }, 'provider failed');
    log.warn(new TelegramApiError('sendMessage', 'Bad Request: chat not found', { status: 400 }));
    log.info({ event: 'nested', detail: { errors: [new RangeError('out of range')] } }, 'nested');

    const [provider, telegram, nested] = lines.map((l) => JSON.parse(l));
    expect(provider.err).toMatchObject({
      type: 'ProviderError',
      message: '401 with key [redacted]',
      code: 'provider_error',
      provider: 'openai',
      status: 401,
      transient: false,
      cause: {
        type: 'TypeError',
        message: 'fetch failed for http://127.0.0.1:8082/?key=[redacted]',
      },
    });
    // A provider's failure is expected: its message says all, no stack (nor its cause's).
    expect(provider.err.stack).toBeUndefined();
    expect(provider.err.cause.stack).toBeUndefined();
    expect(lines.join('\n')).not.toContain(KEY);
    expect(telegram.err).toMatchObject({
      type: 'TelegramApiError',
      message: 'sendMessage failed: Bad Request: chat not found',
      method: 'sendMessage',
      status: 400,
    });
    // So is a channel's: the method and Telegram's description say it.
    expect(telegram.err.stack).toBeUndefined();
    expect(telegram.msg).toBe('sendMessage failed: Bad Request: chat not found');
    expect(nested.detail.errors[0]).toMatchObject({ type: 'RangeError', message: 'out of range' });
    // A bug keeps its stack.
    expect(nested.detail.errors[0].stack).toMatch(/^RangeError: out of range\n\s+at /);
  });

  it('keeps the class of an error subclass that does not set its name', () => {
    class QuietFailure extends Error {}
    const { log, lines } = capture();
    log.error({ err: new QuietFailure('quiet', { cause: 'a plain reason' }) }, 'failed');
    const { err } = JSON.parse(lines[0]!);
    expect(err).toMatchObject({ type: 'QuietFailure', message: 'quiet', cause: 'a plain reason' });
    expect(err.stack).toContain('quiet');
  });
});
