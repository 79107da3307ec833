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

describe('action buttons', () => {
  it('carry a keyboard id and the button, and nothing else', () => {
    const data = encodeButton({ type: 'action', keyboard: 'AbC-_123', button: 3 });
    expect(data).toBe('act:AbC-_123:3');
    expect(decodeButton(data)).toEqual({ type: 'action', keyboard: 'AbC-_123', button: 3 });
    for (const bad of ['act:', 'act:abc', 'act:abc:', 'act::1', 'act:abc:-1', 'act:abc:1.5'])
      expect(decodeButton(bad)).toBeUndefined();
  });
});
