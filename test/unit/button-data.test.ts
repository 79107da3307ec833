import { describe, expect, it } from 'vitest';
import { decodeButton, encodeButton } from '../../src/core/button-data.ts';

describe('model buttons', () => {
  it('carry the model reference, and a hash of one too long for 64 bytes', () => {
    const short = encodeButton({ type: 'model', ref: 'openai:gpt-4.1' });
    expect(short).toBe('model:openai:gpt-4.1');
    expect(decodeButton(short)).toEqual({ type: 'model', ref: 'openai:gpt-4.1' });
    expect(decodeButton('model:default')).toEqual({ type: 'model', ref: 'default' });

    const long = `openai:${'a-very-long-fine-tuned-model-name-'.repeat(3)}`;
    const data = encodeButton({ type: 'model', ref: long });
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(data).toMatch(/^model:#[\w-]{22}$/);
    // A press matches by encoding again: the decoded hash encodes to the same data.
    const pressed = decodeButton(data);
    expect(pressed?.type === 'model' && encodeButton(pressed)).toBe(data);
    expect(encodeButton({ type: 'model', ref: `${long}x` })).not.toBe(data);
  });
});
