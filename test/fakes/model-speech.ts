/**
 * The fake model server's text to speech, as OpenAI's `POST /v1/audio/speech` answers it:
 * the audio bytes themselves (no JSON), here always the fixture test/fixtures/voice/reply.ogg
 * (a real Ogg/Opus voice note, made once by make-reply.sh) with `content-type: audio/ogg`.
 *
 * Strict: a request without `model`, `input` or `voice` (each a non-empty string; `voice`
 * may also be `{id}`) is refused with OpenAI's 400, naming the missing parameter; `input`
 * over 4096 characters is refused too, as the API refuses it.
 */
import { readFileSync } from 'node:fs';
import type { Refusal } from './model-strict.ts';

/** The bytes every successful speech request gets. */
export const SPEECH_OGG = readFileSync(new URL('../fixtures/voice/reply.ogg', import.meta.url));

/** A scripted answer to one speech request: a failure status, a delay, or other bytes. */
export interface SpeechReply {
  status?: number;
  delayMs?: number;
  /** The answer waits until this settles (or the client goes away). */
  until?: Promise<void>;
  /** These bytes instead of the fixture. */
  body?: Buffer;
  /**
   * This many bytes (the fixture over and over), streamed without a content-length in 64 KB
   * chunks, as fast as the client reads; the rest is not sent once the client goes away.
   */
  streamBytes?: number;
}

/** The API's most input characters for one request. */
const MAX_INPUT = 4096;

// biome-ignore lint/suspicious/noExplicitAny: arbitrary request JSON
type Json = any;

const refused = (message: string, param: string, code: string): Refusal => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

/** Why OpenAI refuses this speech request body, or undefined when it takes it. */
export function speechRefusal(body: Json): Refusal | undefined {
  for (const param of ['model', 'input', 'voice']) {
    const value = body?.[param];
    const given =
      (typeof value === 'string' && value !== '') ||
      (param === 'voice' && typeof value?.id === 'string');
    if (!given)
      return refused(
        `Missing required parameter: '${param}'.`,
        param,
        'missing_required_parameter',
      );
  }
  if (body.input.length > MAX_INPUT)
    return refused(
      `'input' is too long: at most ${MAX_INPUT} characters.`,
      'input',
      'string_above_max_length',
    );
  return undefined;
}
