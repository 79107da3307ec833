import { describe, expect, it } from 'vitest';
import { redactSecretShapes, redactSecretShapesIn } from '../../src/core/redact.ts';

const BOT_TOKEN = `7012345678:AAH${'x'.repeat(32)}`;
const OPENAI = 'sk-proj-AbCdEf0123456789_abcdefGHIJ';
const GROQ = 'gsk_0123456789abcdefghijABCDEFGHIJ';
const GOOGLE = `AIzaSy${'a1B2c3D4e5'.repeat(4).slice(0, 33)}`;

describe('redactSecretShapes', () => {
  it.each([
    ['a bot token', `my token is ${BOT_TOKEN}, keep it`, 'my token is [redacted], keep it'],
    ['a bot token in a Bot API URL', `GET /bot${BOT_TOKEN}/getMe`, 'GET /bot[redacted]/getMe'],
    ['an OpenAI key', `OPENAI_API_KEY=${OPENAI}`, 'OPENAI_API_KEY=[redacted]'],
    ['a Groq key', `"${GROQ}"`, '"[redacted]"'],
    ['a Google key', `key: ${GOOGLE}\n`, 'key: [redacted]\n'],
    [
      'a Bearer credential',
      'Authorization: Bearer eyJhbGciOi.J9.abc_DEF-123==',
      'Authorization: Bearer [redacted]',
    ],
    [
      'a lower-case bearer',
      'authorization: bearer abcdefgh12345678',
      'authorization: bearer [redacted]',
    ],
  ])('replaces %s', (_what, text, redacted) => {
    expect(redactSecretShapes(text)).toBe(redacted);
  });

  it.each([
    ['a time', 'meet at 12:30'],
    ['a short id after a colon', 'order 123:abc'],
    ['a word that contains sk-', `task-${'a'.repeat(30)} and desk-lamp`],
    ['letters that merely contain AIza', `xAIza${'b'.repeat(35)}`],
    ['a Telegram file id', 'AgACAgIAAxkBAAIBZ2Zp3x8QAAHyR0-8gkDr5QABHQABAu_LAAKz2zEb'],
    ['a too-long "token"', `123:${'a'.repeat(40)}`],
    ['the word bearer alone', 'the bearer of good news'],
  ])('keeps %s', (_what, text) => {
    expect(redactSecretShapes(text)).toBe(text);
  });

  it('redacts every string inside a value, whatever JSON would escape around it', () => {
    const update = {
      update_id: 7,
      message: { text: `line one\n${OPENAI}\u2028${BOT_TOKEN}`, entities: [{ url: GOOGLE }] },
    };
    expect(redactSecretShapesIn(update)).toEqual({
      update_id: 7,
      message: { text: 'line one\n[redacted]\u2028[redacted]', entities: [{ url: '[redacted]' }] },
    });
  });
});

/**
 * Shapes that made a pattern re-read a run at each of its characters. Each input is 300,000
 * characters: linear redaction takes a millisecond, the quadratic Bearer look-behind took
 * about a minute (100,000 spaces took 7 s), well past the test timeout. No clock is read.
 */
describe('redactSecretShapes on adversarial input', () => {
  const n = 300_000;
  it.each([
    ['spaces', ' '.repeat(n), ' '.repeat(n)],
    ['tabs and newlines', '\t\n'.repeat(n / 2), '\t\n'.repeat(n / 2)],
    ['Bearer then spaces', `Bearer${' '.repeat(n)}`, `Bearer${' '.repeat(n)}`],
    [
      'Bearer then spaces then a credential',
      `Bearer${' '.repeat(n)}abcdefgh1`,
      `Bearer${' '.repeat(n)}[redacted]`,
    ],
    ['Bearer then a long run', `Bearer ${'A'.repeat(n)}`, 'Bearer [redacted]'],
    ['Bearer over and over', 'Bearer '.repeat(n / 7), 'Bearer '.repeat(n / 7)],
    ['a run of A', 'A'.repeat(n), 'A'.repeat(n)],
    ['a run of -', '-'.repeat(n), '-'.repeat(n)],
    ['a run of digits', '1'.repeat(n), '1'.repeat(n)],
    ['/bot then digits', `/bot${'1'.repeat(n)}`, `/bot${'1'.repeat(n)}`],
    ['digits and colons', '1:'.repeat(n / 2), '1:'.repeat(n / 2)],
  ])('redacts %s in one pass', (_what, text, redacted) => {
    expect(redactSecretShapes(text) === redacted).toBe(true);
  });
});

describe('redactSecretShapesIn on deep values', () => {
  it('walks a value nested 20,000 deep without overflowing the stack', () => {
    let value: unknown = { text: OPENAI };
    for (let i = 0; i < 20_000; i++) value = i % 2 ? { x: value } : [value];
    let out = redactSecretShapesIn(value);
    for (let i = 19_999; i >= 0; i--)
      out = i % 2 ? (out as { x: unknown }).x : (out as unknown[])[0];
    expect(out).toEqual({ text: '[redacted]' });
  });

  it('keeps a __proto__ key as data, in its place', () => {
    const value = JSON.parse(`{"a":1,"__proto__":{"polluted":"${GROQ}"},"b":2}`);
    const out = redactSecretShapesIn(value) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['a', '__proto__', 'b']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({
      polluted: '[redacted]',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
