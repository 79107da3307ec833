import { describe, expect, it } from 'vitest';
import { readVoiceText, VOICE_LABEL, voiceText } from '../../src/core/voice-label.ts';

describe('a transcribed voice message as stored', () => {
  it('is the label, the words and the caption, and reads back as such', () => {
    const stored = voiceText('buy milk\nand eggs', '  urgent ');
    expect(stored).toBe(`${VOICE_LABEL}\nbuy milk\nand eggs\nCaption: urgent`);
    expect(readVoiceText(stored)).toEqual({ transcript: 'buy milk\nand eggs', caption: 'urgent' });
    expect(readVoiceText(voiceText('hello', ''))).toEqual({ transcript: 'hello', caption: '' });
  });

  it('is not read into typed text, even text that quotes the label', () => {
    expect(readVoiceText('hello')).toBeUndefined();
    expect(readVoiceText(`see ${VOICE_LABEL}\nhello`)).toBeUndefined();
  });
});
