import { describe, expect, it } from 'vitest';
import {
  isCutConnection,
  mapBrokenResponse,
  retryAfterFromHeaders,
} from '../../src/providers/response-errors.ts';

describe('a connection cut mid-answer', () => {
  const premature = Object.assign(new Error('Premature close'), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
  });
  const undiciCut = new TypeError('terminated', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

  it('is recognized however the stack reports it', () => {
    for (const error of [premature, undiciCut, reset]) expect(isCutConnection(error)).toBe(true);
    const ours = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    for (const error of [ours, new SyntaxError('Unexpected token'), new Error('boom')])
      expect(isCutConnection(error)).toBe(false);
  });

  it('becomes a transient ProviderError naming the code', () => {
    expect(mapBrokenResponse('openai', undiciCut)).toMatchObject({
      transient: true,
      message: 'openai connection broke mid-answer: terminated (UND_ERR_SOCKET)',
    });
    expect(mapBrokenResponse('groq', reset)?.message).toBe(
      'groq connection broke mid-answer: aborted (ECONNRESET)',
    );
  });
});

describe('Retry-After', () => {
  it('reads retry-after-ms first, then Retry-After in seconds, and ignores dates', () => {
    const read = (init: Record<string, string>) => retryAfterFromHeaders(new Headers(init));
    expect(read({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(read({ 'retry-after': '1.5' })).toBe(1500);
    expect(read({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' })).toBeUndefined();
    expect(read({ 'retry-after': '' })).toBeUndefined();
    expect(read({})).toBeUndefined();
  });
});
