import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.ts';

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

  it('keeps debug lines out at info', () => {
    const { log, lines } = capture('info');
    log.debug({ text: 'private words' }, 'message text');
    expect(lines).toEqual([]);
  });
});
