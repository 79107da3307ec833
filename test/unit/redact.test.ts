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
