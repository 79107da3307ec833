import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isOggOpus } from '../../src/turn/ogg-opus.ts';
import { SPEECH_OGG } from '../fakes/model-speech.ts';

/** The fixture's first page with its first packet's magic replaced by `magic` (8 bytes). */
function withMagic(magic: string): Buffer {
  const bytes = Buffer.from(SPEECH_OGG);
  bytes.write(magic, 27 + bytes[26]!, 'latin1');
  return bytes;
}

describe('isOggOpus (what may go out as a voice note)', () => {
  it('takes a real Ogg/Opus voice note', () => {
    expect(isOggOpus(SPEECH_OGG)).toBe(true);
  });

  it('refuses random bytes, an empty answer, a cut header, MP3 and Ogg that is not Opus', () => {
    expect(isOggOpus(randomBytes(3 * 1024))).toBe(false);
    expect(isOggOpus(Buffer.alloc(0))).toBe(false);
    expect(isOggOpus(SPEECH_OGG.subarray(0, 30))).toBe(false);
    expect(isOggOpus(Buffer.concat([Buffer.from('ID3\x04'), randomBytes(200)]))).toBe(false);
    expect(isOggOpus(withMagic('\x01vorbis\x00'))).toBe(false);
  });

  it('refuses an Ogg page that does not open its stream', () => {
    const later = Buffer.from(SPEECH_OGG);
    later[5] = 0;
    expect(isOggOpus(later)).toBe(false);
  });
});
