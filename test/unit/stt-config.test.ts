/**
 * STT_PROVIDER and its defaults (SPEC §1): who transcribes, with which model, key and server.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { OPENAI_API_URL } from '../../src/config/stt.ts';
import { ConfigError } from '../../src/core/errors.ts';

const stt = (env: Record<string, string>) =>
  parseConfig({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', OPENAI_API_KEY: 'sk', ...env }).stt;

function errorOf(env: Record<string, string>): string {
  try {
    parseConfig({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi', ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('STT_PROVIDER by default', () => {
  it('is groq when GROQ_API_KEY is set, whatever else is', () => {
    expect(stt({ GROQ_API_KEY: 'gsk' })).toEqual({
      provider: 'groq',
      model: 'whisper-large-v3-turbo',
      apiKey: 'gsk',
    });
  });

  it("is openai on OpenAI's own API, with gpt-4o-mini-transcribe", () => {
    expect(stt({})).toEqual({ provider: 'openai', model: 'gpt-4o-mini-transcribe', apiKey: 'sk' });
    const named = stt({ OPENAI_BASE_URL: OPENAI_API_URL });
    expect(named?.provider).toBe('openai');
  });

  it('is off on a compatible chat server, or with no key for speech', () => {
    expect(stt({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toBeUndefined();
    expect(
      parseConfig({ TELEGRAM_BOT_TOKEN: '1:a', LLM_PROVIDER: 'gemini', GEMINI_API_KEY: 'g' }).stt,
    ).toBeUndefined();
  });
});

describe('STT_PROVIDER set', () => {
  it('off turns it off whatever keys are set', () => {
    expect(stt({ STT_PROVIDER: 'off', GROQ_API_KEY: 'gsk' })).toBeUndefined();
  });

  it('openai on a server of its own: STT_BASE_URL, STT_API_KEY and STT_MODEL', () => {
    expect(
      stt({
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        STT_PROVIDER: 'openai',
        STT_BASE_URL: 'http://127.0.0.1:8000/v1',
        STT_API_KEY: 'local',
        STT_MODEL: 'whisper-1',
      }),
    ).toEqual({
      provider: 'openai',
      model: 'whisper-1',
      apiKey: 'local',
      baseUrl: 'http://127.0.0.1:8000/v1',
    });
  });

  it("openai on the chat's compatible server when it names no other", () => {
    expect(stt({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', STT_PROVIDER: 'openai' })).toEqual({
      provider: 'openai',
      model: 'gpt-4o-mini-transcribe',
      apiKey: 'sk',
      baseUrl: 'http://127.0.0.1:11434/v1',
    });
  });

  it('refuses a provider that cannot be called, or cannot transcribe, naming the variables', () => {
    expect(errorOf({ OPENAI_API_KEY: 'sk', STT_PROVIDER: 'groq' })).toContain(
      'STT_PROVIDER=groq needs a key: set GROQ_API_KEY or STT_API_KEY',
    );
    expect(errorOf({ OPENAI_API_KEY: 'sk', STT_PROVIDER: 'gemini' })).toContain(
      'STT_PROVIDER must be "openai", "groq", "off"',
    );
    expect(errorOf({ OPENAI_API_KEY: 'sk', STT_BASE_URL: 'localhost:8000' })).toContain(
      'STT_BASE_URL must be an http(s) URL',
    );
  });
});
