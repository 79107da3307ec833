import { describe, expect, it } from 'vitest';
import { createInterrupts, LEAVE_INTERRUPT_MS } from '../../src/cli/chat.ts';
import type { InboundEvent } from '../../src/core/types.ts';
import { markdown } from '../../src/outbound/compose.ts';
import { degrade } from '../../src/outbound/degrade.ts';
import { createTerminalChannel, LOCAL_ADDRESS } from '../../src/terminal/channel.ts';
import { createTerminalInput } from '../../src/terminal/input.ts';
import { createPromptedOutput, PLAIN_STYLE, styleFor, TTY_STYLE } from '../../src/terminal/tty.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** A terminal channel printing into a string. */
function screen() {
  let text = '';
  const channel = createTerminalChannel((chunk) => {
    text += chunk;
  });
  return { channel, shown: () => text };
}

/**
 * Streams `written` as the outbox would: a draft of the rendered text after every `step`
 * characters (the last part, as the stream shows it), then the final text's parts.
 */
async function stream(channel: ReturnType<typeof screen>['channel'], written: string, step = 1) {
  for (let end = step; end < written.length; end += step) {
    const part = channel.render.text(markdown(written.slice(0, end))).at(-1);
    if (part) await channel.sendDraft!(LOCAL_ADDRESS, 7, part.text, { formatted: true });
  }
}

async function finish(channel: ReturnType<typeof screen>['channel'], answer: string) {
  for (const part of channel.render.text(markdown(answer)))
    await channel.sendText(LOCAL_ADDRESS, part.text, { formatted: true });
}

const plainOf = (answer: string) =>
  screen()
    .channel.render.text(markdown(answer))
    .map((p) => p.plain)
    .join('\n');

const ANSWERS = [
  'Water **deeply** once a week, and *never* at noon.',
  'Use `db_query` to read, then:\n\n```sql\nSELECT * FROM plants;\n```\n\nDone.',
  '1. Dig\n2. Plant\n3. Water\n\n- north bed\n- south bed\n\n---\n\nThat is all.',
  '# Plan\n\n> Basil loves sun.\n\nSee www.example.com or [the guide](https://example.com/g).',
  '| plant | bed |\n|---|---|\n| basil | south |\n| mint | north |\n\nTwo plants.',
  'snake_case and 5 * 3 and a ~tilde~ stay as written, word_by_word.',
  'Title\n=====\n\n**Bold that\nspans lines** and _more_.\n\n> - quoted item\n> - another',
];

describe('the terminal channel', () => {
  it.each(ANSWERS)('prints a streamed answer once, as its final text reads: %s', async (answer) => {
    for (const step of [1, 4, 9]) {
      const { channel, shown } = screen();
      await stream(channel, answer, step);
      await finish(channel, answer);
      expect(shown()).toBe(`${plainOf(answer)}\n`);
    }
  });

  it('prints a reply longer than one message once, in order', async () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) => `Paragraph ${i}: ${'so on '.repeat(15)}`,
    );
    const answer = paragraphs.join('\n\n');
    // The terminal has no length limit: the whole reply is one part, printed once.
    expect(screen().channel.render.text(markdown(answer))).toHaveLength(1);
    // Steps that fall mid-word and mid-paragraph; one character at a time is covered by the
    // short answers above (here it would render 6,000 growing prefixes: seconds, not a check).
    for (const step of [37, 400]) {
      const { channel, shown } = screen();
      await stream(channel, answer, step);
      await finish(channel, answer);
      const found = [...shown().matchAll(/Paragraph (\d+):/g)].map((m) => Number(m[1]));
      expect(found).toEqual(paragraphs.map((_, i) => i));
      expect(shown().endsWith(`${paragraphs.at(-1)!.trim()}\n`)).toBe(true);
    }
  });

  it('prints the streamed text before the final text arrives', async () => {
    const { channel, shown } = screen();
    await stream(channel, 'The basil goes in the south bed, where the sun is.');
    expect(shown()).toBe('The basil goes in the south bed, where the sun ');
    await finish(channel, 'The basil goes in the south bed, where the sun is.');
    expect(shown()).toBe('The basil goes in the south bed, where the sun is.\n');
  });

  it('does not repeat the answer when the drafts also showed text written before a tool call', async () => {
    const { channel, shown } = screen();
    await stream(channel, 'Let me look at the beds. The south bed is free for basil.');
    await finish(channel, 'The south bed is free for basil.');
    expect(shown()).toBe('Let me look at the beds. The south bed is free for basil.\n');
  });

  it('starts a message that does not continue the drafts on a line of its own', async () => {
    const { channel, shown } = screen();
    await stream(channel, 'I was writing something long when ');
    await channel.sendText(LOCAL_ADDRESS, 'Stopped.', { formatted: false });
    await channel.sendText(LOCAL_ADDRESS, 'Next.', { formatted: false });
    expect(shown()).toBe('I was writing something long \nStopped.\nNext.\n');
  });

  it('prints buttons as numbered options, and a number takes one once', async () => {
    const { channel, shown } = screen();
    const keyboard = [
      [{ text: 'North bed', data: 'ask:q1:0' }],
      [{ text: 'South bed', data: 'ask:q1:1' }],
    ];
    const { messageId } = await channel.sendText(LOCAL_ADDRESS, 'Which bed?', {
      formatted: false,
      keyboard,
    });
    expect(shown()).toBe(
      'Which bed?\n  1. North bed\n  2. South bed\n(type a number, 1–2, to choose)\n',
    );
    expect(channel.choose(3)).toBeUndefined();
    expect(channel.choose(2)).toEqual({ messageId, data: 'ask:q1:1' });
    expect(channel.choose(1)).toBeUndefined();
  });

  it('repeats only the hint when the same options are asked again right below', async () => {
    const { channel, shown } = screen();
    const keyboard = [
      [{ text: 'Alpha', data: 'pack:alpha' }],
      [{ text: 'Beta', data: 'pack:beta' }],
    ];
    await channel.sendText(LOCAL_ADDRESS, 'Which pack?', { formatted: false, keyboard });
    const again = await channel.sendText(LOCAL_ADDRESS, 'Which pack?', {
      formatted: false,
      keyboard,
    });
    expect(shown()).toBe(
      'Which pack?\n  1. Alpha\n  2. Beta\n(type a number, 1–2, to choose)\n' +
        '(type a number, 1–2, to choose)\n',
    );
    expect(channel.choose(1)).toEqual({ messageId: again.messageId, data: 'pack:alpha' });
    await channel.sendText(LOCAL_ADDRESS, 'Which pack?', { formatted: false, keyboard });
    expect(shown().match(/Which pack\?/g)).toHaveLength(2);
  });

  it('says it sends text only, so photos and voice become text with a note', () => {
    const { channel } = screen();
    const photo = degrade(
      { kind: 'photo', source: { url: 'https://x.test/p.jpg' }, caption: 'Basil' },
      channel,
    );
    expect(photo.payload).toMatchObject({
      kind: 'text',
      text: 'Basil\n\n[photo](https://x.test/p.jpg)',
    });
    expect(photo.note).toContain('photo sent as text');
    expect(degrade({ kind: 'voice', source: { path: '/tmp/a.ogg' } }, channel).payload?.kind).toBe(
      'text',
    );
    expect(channel.sendChatAction).toBeUndefined();
    expect(channel.editText).toBeUndefined();
  });

  it('shows an approval question with its keys; once its options end, a key names nothing', async () => {
    const { channel, shown } = screen();
    const keyboard = [
      [{ text: 'Allow once', data: 'ask:q1:0', key: 'y' }],
      [{ text: 'Deny', data: 'ask:q1:1', key: 'n' }],
    ];
    const { messageId } = await channel.sendText(LOCAL_ADDRESS, 'Allow memory?', {
      formatted: true,
      keyboard,
    });
    expect(shown()).toBe(
      'Allow memory?\n  1. Allow once [y]\n  2. Deny [n]\n(type a number, 1–2 or y/n, to choose)\n',
    );
    expect(channel.choose('a')).toBeUndefined();
    expect(channel.choose('n')).toEqual({ messageId, data: 'ask:q1:1' });
    await channel.sendText(LOCAL_ADDRESS, 'Allow memory?', { formatted: true, keyboard });
    channel.dropOptions();
    expect(channel.options).toBeUndefined();
    expect(channel.choose('y')).toBeUndefined();
  });
});

describe('terminal input', () => {
  function input(options?: { data: string; messageId: string }[]) {
    const events: InboundEvent[] = [];
    const notices: string[] = [];
    let exits = 0;
    const clock = new FakeClock(1_000_000);
    const shown = options ? [...options] : [];
    const typed = createTerminalInput({
      address: LOCAL_ADDRESS,
      clock,
      accept: (e) => events.push(e),
      choose: (n) => (typeof n === 'number' ? shown.splice(n - 1, 1)[0] : undefined),
      optionCount: () => shown.length,
      notice: (text) => notices.push(text),
      exit: () => {
        exits++;
      },
    });
    return { typed, events, notices, exits: () => exits };
  }

  it('turns lines into commands and texts from the local user, each with its own origin', () => {
    const { typed, events } = input();
    typed.line('/new');
    typed.line('  ');
    typed.line('/help@satchel_bot skills please');
    typed.line('/usr/bin is a path');
    typed.line('42');
    expect(events.map(({ origin, receivedAt, ...rest }) => rest)).toEqual([
      {
        address: LOCAL_ADDRESS,
        chatType: 'private',
        senderId: '0',
        kind: 'command',
        command: 'new',
        args: '',
      },
      {
        address: LOCAL_ADDRESS,
        chatType: 'private',
        senderId: '0',
        kind: 'command',
        command: 'help',
        args: 'skills please',
      },
      {
        address: LOCAL_ADDRESS,
        chatType: 'private',
        senderId: '0',
        kind: 'text',
        text: '/usr/bin is a path',
      },
      { address: LOCAL_ADDRESS, chatType: 'private', senderId: '0', kind: 'text', text: '42' },
    ]);
    // Lines typed within one millisecond still get distinct, growing numbers.
    const keys = events.map((e) => e.origin);
    expect(keys).toEqual(
      ['1000000', '1000001', '1000002', '1000003'].map((key) => ({
        platform: 'local',
        keys: [key],
      })),
    );
  });

  it('turns a number into a press of the option shown', () => {
    const { typed, events } = input([{ data: 'pack:beta', messageId: '3' }]);
    typed.line('1');
    expect(events[0]).toMatchObject({ kind: 'callback', data: 'pack:beta', messageId: '3' });
  });

  it('refuses a number outside the options shown with a notice, and sends nothing', () => {
    const { typed, events, notices } = input([
      { data: 'pack:alpha', messageId: '3' },
      { data: 'pack:beta', messageId: '3' },
    ]);
    typed.line('7');
    typed.line('0');
    expect(events).toEqual([]);
    expect(notices).toEqual([
      'There is no option 7: type a number from 1 to 2.',
      'There is no option 0: type a number from 1 to 2.',
    ]);
    typed.line('2');
    expect(events[0]).toMatchObject({ kind: 'callback', data: 'pack:beta' });
  });

  it('takes y, yes, n, no and a as the keys of the options shown; with none shown they are text', () => {
    const events: InboundEvent[] = [];
    const asked: (number | string)[] = [];
    let shown = false;
    const typed = createTerminalInput({
      address: LOCAL_ADDRESS,
      clock: new FakeClock(1_000_000),
      accept: (e) => events.push(e),
      choose: (choice) => {
        asked.push(choice);
        return shown ? { messageId: '5', data: `ask:q1:${choice}` } : undefined;
      },
      optionCount: () => (shown ? 3 : 0),
      notice: () => {},
      exit: () => {},
    });
    typed.line('y');
    typed.line('no');
    expect(events.map((e) => (e.kind === 'text' ? e.text : e.kind))).toEqual(['y', 'no']);
    shown = true;
    for (const line of ['y', 'YES', 'n', 'No', 'a', ' yes ']) typed.line(line);
    // Not keys: said as text (the question waits on).
    typed.line('yeah');
    typed.line('always');
    expect(asked).toEqual(['y', 'n', 'y', 'y', 'n', 'n', 'a', 'y']);
    expect(
      events.slice(2).map((e) => (e.kind === 'callback' ? [e.data, e.messageId] : e.kind)),
    ).toEqual([
      ['ask:q1:y', '5'],
      ['ask:q1:y', '5'],
      ['ask:q1:n', '5'],
      ['ask:q1:n', '5'],
      ['ask:q1:a', '5'],
      ['ask:q1:y', '5'],
      'text',
      'text',
    ]);
  });

  it('leaves on /exit (or /quit) without sending it to the pipeline', () => {
    const { typed, events, exits } = input();
    typed.line('/exit');
    typed.line('/QUIT');
    expect(exits()).toBe(2);
    expect(events).toEqual([]);
  });
});

describe('terminal style', () => {
  it('colours and prompts only on a terminal, and not under NO_COLOR', () => {
    expect(styleFor({ isTTY: true }, {})).toBe(TTY_STYLE);
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(PLAIN_STYLE);
    expect(styleFor({}, {})).toBe(PLAIN_STYLE);
  });

  it('shows the prompt after each finished line and erases it before more output', () => {
    let text = '';
    const out = createPromptedOutput((t) => {
      text += t;
    }, '> ');
    out.write('hello\n');
    out.write('draft ');
    out.write('done\n');
    out.lineTyped(false);
    out.write('answer\n');
    expect(text).toBe('hello\n> \r\x1b[Kdraft done\n> answer\n> ');
  });

  it('writes text as it is without a prompt (piped)', () => {
    const { channel, shown } = screen();
    channel.note('a note');
    expect(shown()).toBe('a note\n');
    let text = '';
    const out = createPromptedOutput((t) => {
      text += t;
    }, PLAIN_STYLE.prompt);
    out.write('hello\n');
    out.lineTyped(true);
    expect(text).toBe('hello\n');
  });
});

describe('Ctrl-C in the chat', () => {
  function presses(...times: number[]) {
    const did: string[] = [];
    const press = createInterrupts({
      interrupt: () => did.push('stop'),
      quit: () => did.push('leave'),
    });
    for (const t of times) press(t);
    return did;
  }

  it('stops the answer on one press, and leaves on a second press soon after', () => {
    expect(presses(0)).toEqual(['stop']);
    // The same press forwarded twice (npm), then a second press.
    expect(presses(0, 50, 900)).toEqual(['stop', 'leave']);
    // Presses far apart each stop an answer.
    expect(presses(0, LEAVE_INTERRUPT_MS + 1)).toEqual(['stop', 'stop']);
  });
});
