import { describe, expect, it } from 'vitest';
import type { ChannelCapabilities } from '../../src/core/ports.ts';
import { degrade, type OutboundPayload, type Sendable } from '../../src/outbound/degrade.ts';

/** The payload capabilities, and `chatActions`: whether the channel has `sendChatAction`. */
const FLAGS = ['photo', 'audio', 'voice', 'document', 'keyboard', 'chatActions'] as const;
type Flag = (typeof FLAGS)[number];

/** A channel with exactly the flags in `on`. */
function channelWith(on: ReadonlySet<Flag>): Sendable {
  const capabilities = Object.fromEntries(
    FLAGS.filter((f) => f !== 'chatActions').map((f) => [f, on.has(f)]),
  ) as unknown as ChannelCapabilities;
  return on.has('chatActions')
    ? { capabilities, sendChatAction: async () => undefined }
    : { capabilities };
}
const ALL = channelWith(new Set(FLAGS));
const without = (...flags: Flag[]): Sendable =>
  channelWith(new Set(FLAGS.filter((f) => !flags.includes(f))));

const keyboard = [
  [
    { text: 'Yes', data: 'y' },
    { text: 'No', data: 'n' },
  ],
];
const PAYLOADS: OutboundPayload[] = [
  { kind: 'text', text: 'hello', format: 'markdown' },
  { kind: 'text', text: 'pick one', format: 'plain', keyboard },
  { kind: 'photo', source: { url: 'https://example.com/cat.jpg' }, caption: 'a cat' },
  { kind: 'audio', source: { path: '/srv/media/song.mp3' } },
  { kind: 'voice', source: { url: 'https://example.com/note.ogg' }, caption: 'listen', keyboard },
  { kind: 'document', source: { url: 'https://example.com/report.pdf' }, caption: 'the report' },
  { kind: 'action', action: 'typing' },
];

describe('capability degrade', () => {
  it.each([
    [
      'photo → text with caption and link',
      PAYLOADS[2]!,
      without('photo'),
      { kind: 'text', text: 'a cat\n\n[photo](https://example.com/cat.jpg)' },
      'photo sent as text with a link',
    ],
    [
      'voice → audio',
      PAYLOADS[4]!,
      without('voice'),
      { kind: 'audio', caption: 'listen', keyboard },
      'voice sent as audio',
    ],
    [
      'voice → text when audio is missing too',
      PAYLOADS[4]!,
      without('voice', 'audio'),
      { kind: 'text', text: 'listen\n\n[voice](https://example.com/note.ogg)', keyboard },
      'voice sent as text with a link',
    ],
    [
      'audio from a file → text naming the file',
      PAYLOADS[3]!,
      without('audio'),
      { kind: 'text', text: 'audio file: `song.mp3`' },
      'audio sent as text with a link',
    ],
    [
      'document → text with link',
      PAYLOADS[5]!,
      without('document'),
      { kind: 'text', text: 'the report\n\n[document](https://example.com/report.pdf)' },
      'document sent as text with a link',
    ],
    [
      'keyboard → listed options',
      PAYLOADS[1]!,
      without('keyboard'),
      { kind: 'text', text: 'pick one\n\nOptions: Yes, No' },
      'buttons sent as a list of options: buttons not supported',
    ],
  ])('%s', (_name, payload, can, expected, note) => {
    const result = degrade(payload, can);
    expect(result.payload).toMatchObject(expected);
    expect(result.note).toBe(note);
  });

  it('skips a chat action the channel cannot show', () => {
    expect(degrade(PAYLOADS[6]!, without('chatActions'))).toEqual({
      payload: undefined,
      note: 'chat action "typing" skipped: not supported',
    });
  });

  it('every payload × every capability set yields something the channel can send', () => {
    for (let mask = 0; mask < 2 ** FLAGS.length; mask++) {
      const channel = channelWith(new Set(FLAGS.filter((_, bit) => mask & (1 << bit))));
      const can = channel.capabilities;
      for (const payload of PAYLOADS) {
        const { payload: out, note } = degrade(payload, channel);
        const changed = JSON.stringify(out) !== JSON.stringify(payload);
        expect(Boolean(note), `${payload.kind} mask ${mask}`).toBe(changed);
        if (!out) {
          expect(payload.kind).toBe('action');
          continue;
        }
        if (out.kind === 'action') expect(channel.sendChatAction).toBeDefined();
        else if (out.kind !== 'text') expect(can[out.kind]).toBe(true);
        if (out.kind !== 'action' && out.keyboard) expect(can.keyboard).toBe(true);
      }
    }
  });

  it('leaves what the channel supports untouched', () => {
    for (const payload of PAYLOADS) expect(degrade(payload, ALL)).toEqual({ payload });
  });
});
