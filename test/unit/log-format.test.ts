import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { ProviderError } from '../../src/core/errors.ts';
import { chooseLogFormat, createLogger, type LogFormat } from '../../src/logging/logger.ts';
import { TelegramApiError } from '../../src/telegram/errors.ts';

const TOKEN = '123456:SECRET-bot-token';
const KEY = 'sk-live-abcdef123456';

function capture(options: { format?: LogFormat; tty?: boolean }) {
  let out = '';
  const log = createLogger({
    level: 'info',
    secrets: [TOKEN, KEY],
    destination: {
      write: (chunk: string) => {
        out += chunk;
      },
    },
    ...options,
  });
  return { log, out: () => out };
}

const isJsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .every((line) => {
      try {
        JSON.parse(line);
        return true;
      } catch {
        return false;
      }
    });

describe('log format', () => {
  it.each([
    [undefined, false, 'json'],
    [undefined, true, 'pretty'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('LOG_FORMAT=%s on a terminal=%s gives %s', (setting, tty, expected) => {
    expect(chooseLogFormat(setting, tty)).toBe(expected);
  });

  it('is pino JSON by default (a service, a pipe)', () => {
    const { log, out } = capture({});
    log.info({ event: 'tg_connected', username: 'bot' }, 'connected as @bot');
    expect(isJsonLines(out())).toBe(true);
    expect(JSON.parse(out())).toMatchObject({ event: 'tg_connected', msg: 'connected as @bot' });
  });

  it('is readable in a terminal: time, level, the event, the message and the fields', () => {
    const { log, out } = capture({ tty: true });
    log.info({ event: 'tg_connected', username: 'bot' }, 'connected as @bot');
    // A terminal gets colours; what they colour is checked here.
    expect(out()).toContain('\u001b[');
    const text = stripVTControlCharacters(out());
    expect(isJsonLines(text)).toBe(false);
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*\[tg_connected\] connected as @bot/,
    );
    // One line per event, fields included, so a busy bot's terminal stays readable.
    expect(text).toContain('"username":"bot"');
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).not.toContain('hostname');
  });

  it('keeps an expected failure (a refused bot token) on one readable line, without a stack', () => {
    const { log, out } = capture({ format: 'pretty' });
    const refused = new TelegramApiError('getMe', 'Unauthorized', {
      status: 401,
      cause: new Error('401 from Telegram'),
    });
    log.error(
      { event: 'tg_polling_stopped', hint: 'check the token', err: refused },
      'polling stopped',
    );
    const text = out().trim();
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toContain('[tg_polling_stopped] polling stopped');
    expect(text).toContain('TelegramApiError: getMe failed: Unauthorized (channel_error, 401)');
    expect(text).not.toContain('    at ');
  });

  it('keeps the stack of an unexpected error below its line', () => {
    const { log, out } = capture({ format: 'pretty' });
    log.error({ event: 'turn_failed', err: new TypeError('x is undefined') }, 'turn failed');
    expect(out()).toContain('TypeError: x is undefined\n');
    expect(out()).toMatch(/\n\s+at /);
  });

  it('LOG_FORMAT=json keeps JSON on a terminal, and pretty forces the readable form', () => {
    const json = capture({ tty: true, format: 'json' });
    json.log.warn({ event: 'allowlist_empty' }, 'empty');
    expect(isJsonLines(json.out())).toBe(true);
    const readable = capture({ tty: false, format: 'pretty' });
    readable.log.warn({ event: 'allowlist_empty' }, 'empty');
    expect(readable.out()).toContain('WARN');
    expect(readable.out()).toContain('[allowlist_empty] empty');
    // No terminal: no colour codes.
    expect(readable.out()).not.toContain('\u001b[');
  });

  it('still scrubs secrets in the readable form', () => {
    const { log, out } = capture({ format: 'pretty' });
    const failure = new ProviderError('openai', `401 with key ${KEY}`, {
      status: 401,
      transient: false,
    });
    log.error(
      { event: 'provider_error', err: failure, url: `http://x/bot${TOKEN}/getMe`, apiKey: KEY },
      'model call failed',
    );
    const text = out();
    expect(text).toContain('[provider_error] model call failed');
    expect(text).not.toContain('    at ');
    expect(text).toContain('401 with key [redacted]');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(KEY);
  });

  it('LOG_FORMAT is read from the environment and checked', () => {
    const env = { TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', OPENAI_API_KEY: 'sk-test' };
    expect(parseConfig(env).logFormat).toBeUndefined();
    expect(parseConfig({ ...env, LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(parseConfig({ ...env, LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => parseConfig({ ...env, LOG_FORMAT: 'yaml' })).toThrow(
      /LOG_FORMAT must be "json" or "pretty"/,
    );
  });
});
