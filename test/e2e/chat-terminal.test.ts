import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChat, LEAVE_HINT } from '../../src/chat-app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { PLAIN_STYLE, type TerminalStyle, TTY_STYLE } from '../../src/terminal/tty.ts';
import { lastUserText, toolResults } from '../fakes/model-requests.ts';
import { chatEnv } from '../support/chat-env.ts';
import type { LogLine } from '../support/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `satchel chat` in this process, on a stream of typed lines and a recorded screen. */
async function chatIn(packs: string[], style: TerminalStyle, env: Record<string, string> = {}) {
  const { model, home, env: base } = await chatEnv(packs, '', (...undo) => cleanups.push(...undo));
  const config = parseConfig({ ...base, ...env });
  let shown = '';
  const logs: LogLine[] = [];
  const input = new PassThrough();
  const output = new Writable({
    write(chunk, _encoding, done) {
      shown += String(chunk);
      done();
    },
  });
  const chat = createChat(config, {
    input,
    output,
    errors: output,
    style,
    logDestination: { write: (line: string) => void logs.push(JSON.parse(line)) },
  });
  const exited = chat.run();
  return {
    type: (line: string) => input.write(`${line}\n`),
    /** Ctrl-D: the end of the input. */
    end: () => input.end(),
    shows: (text: string) =>
      vi.waitFor(() => expect(shown).toContain(text), { timeout: 10_000, interval: 20 }),
    screen: () => shown,
    model,
    home,
    logs: (event: string) => logs.filter((l) => l.event === event),
    exited,
  };
}

describe('satchel chat in a terminal', () => {
  it('says how to leave, lists only the commands that work there, and leaves on /exit', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE);
    await chat.shows(LEAVE_HINT);
    chat.type('/help');
    await chat.shows('/new — Start a fresh session');
    expect(chat.screen()).not.toContain('/topics');
    // The input stays open: only /exit ends the chat.
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
    expect(chat.screen()).not.toContain('\x1b[');
  });

  it('on a terminal, shows a coloured prompt and dimmed notes', async () => {
    const chat = await chatIn(['alpha', 'beta'], TTY_STYLE);
    await chat.shows(TTY_STYLE.note('(type a number, 1–2, to choose)'));
    expect(chat.screen()).toContain(TTY_STYLE.note(LEAVE_HINT));
    expect(chat.screen()).toContain(`  2. Beta Books\n${TTY_STYLE.prompt}`);
    chat.type('9');
    await chat.shows(TTY_STYLE.note('There is no option 9: type a number from 1 to 2.'));
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
  });
});

describe('voice replies in the terminal chat', () => {
  it('skips them: answers stay text, nothing is spoken, and /voice says why', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE, {
      VOICE_REPLY: 'always',
      LOG_LEVEL: 'debug',
    });
    chat.type('hello');
    await chat.shows('echo: hello');
    // The conversation's lines run in order: /voice answers after the turn is over.
    chat.type('/voice');
    await chat.shows('This chat cannot play voice notes, so answers here stay text.');
    expect(chat.screen()).toContain(
      'Voice replies on: every answer here also comes as a voice note (the default, VOICE_REPLY).',
    );
    expect(chat.model.requests({ kind: 'speech' })).toEqual([]);
    expect(chat.logs('voice_reply_skipped')).toMatchObject([{ reason: 'channel' }]);
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
  });
});

describe('an approval in the terminal chat', () => {
  const NOT_APPROVED = 'Error: the owner did not approve this call';
  const appendCall = (text: string) => ({
    toolCalls: [{ name: 'memory', arguments: { action: 'append', file: 'MEMORY.md', text } }],
  });

  it('asks with numbered options and keys; n denies, y and yes allow; a y with nothing asked is text', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE, { TOOL_APPROVAL: 'always' });
    const memory = () => readFileSync(path.join(chat.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');
    await chat.shows(LEAVE_HINT);
    // Nothing is asked: a `y` is what the owner says.
    chat.type('y');
    await chat.shows('echo: y');
    expect(lastUserText(chat.model.chatRequests()[0]!)).toBe('y');
    const before = memory();

    chat.model.enqueue(appendCall('owner has a fern'), { text: 'Not saved.' });
    chat.type('remember my fern');
    await chat.shows(
      '  1. Allow once [y]\n  2. Always allow memory in alpha [a]\n  3. Deny [n]\n' +
        '(type a number, 1–3 or y/a/n, to choose)\n',
    );
    expect(chat.screen()).toContain('🔐 Allow memory? (Alpha Garden)\nThis call would change');
    expect(chat.screen()).not.toContain('**');
    chat.type('n');
    await chat.shows('(type a number, 1–3 or y/a/n, to choose)\nNot saved.');
    expect(toolResults(chat.model.chatRequests().at(-1))).toEqual([NOT_APPROVED]);
    expect(memory()).toBe(before);
    expect(chat.logs('approval_denied')).toMatchObject([{ tool: 'memory', reason: 'denied' }]);

    for (const [answer, note] of [
      ['y', 'owner has basil'],
      ['yes', 'owner has a cactus'],
    ] as const) {
      chat.model.enqueue(appendCall(note), { text: `Saved ${note}.` });
      chat.type(`remember: ${note}`);
      await vi.waitFor(() =>
        expect(chat.logs('approval_requested')).toHaveLength(answer === 'y' ? 2 : 3),
      );
      chat.type(answer);
      await chat.shows(`to choose)\nSaved ${note}.`);
      expect(toolResults(chat.model.chatRequests().at(-1)).at(-1)).toMatch(/^MEMORY.md appended/);
      expect(memory()).toContain(note);
    }
    expect(chat.logs('approval_granted')).toMatchObject([
      { tool: 'memory', scope: 'once' },
      { tool: 'memory', scope: 'once' },
    ]);
    // Nothing is asked any more: `y` is text again.
    chat.type('y');
    await vi.waitFor(() => expect(lastUserText(chat.model.chatRequests().at(-1)!)).toBe('y'));
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('after an unanswered question times out, the model reads the refusal and a typed y is text again', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE, {
      TOOL_APPROVAL: 'always',
      APPROVAL_TIMEOUT_MS: '300',
    });
    chat.model.enqueue(appendCall('owner has a fern'), { text: 'Not saved.' });
    chat.type('remember my fern');
    await chat.shows('(type a number, 1–3 or y/a/n, to choose)\nNot saved.\n');
    await vi.waitFor(() => expect(chat.logs('turn_completed')).toHaveLength(1));
    expect(chat.logs('approval_denied')).toMatchObject([{ tool: 'memory', reason: 'timeout' }]);
    expect(toolResults(chat.model.chatRequests().at(-1))).toEqual([NOT_APPROVED]);
    // The question ended with its turn: `y` is what the owner says, not a press of nothing.
    chat.type('y');
    await chat.shows('echo: y');
    expect(lastUserText(chat.model.chatRequests().at(-1)!)).toBe('y');
    expect(chat.screen()).not.toContain('expired');
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('a keeps the answer: the next call runs unasked, /approvals lists it and /approvals reset ends it', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE, { TOOL_APPROVAL: 'always' });
    chat.model.enqueue(appendCall('owner has a fern'), { text: 'Saved the fern.' });
    chat.type('remember my fern');
    await chat.shows('(type a number, 1–3 or y/a/n, to choose)');
    chat.type('a');
    await chat.shows('Saved the fern.');
    expect(chat.logs('approval_granted')).toMatchObject([{ tool: 'memory', scope: 'always' }]);

    chat.model.enqueue(appendCall('owner has a palm'), { text: 'Saved the palm.' });
    chat.type('remember my palm');
    await chat.shows('Saved the palm.');
    expect(chat.logs('approval_requested')).toHaveLength(1);
    expect(toolResults(chat.model.chatRequests().at(-1)).at(-1)).toMatch(/^MEMORY.md appended/);
    chat.type('/approvals');
    await chat.shows('• memory in Alpha Garden');
    chat.type('/approvals reset');
    await chat.shows('Removed 1 standing approval: those calls ask again.');
    chat.type('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('when the input ends while the owner is asked, the turn stops: nothing is written and the chat exits 0', async () => {
    const chat = await chatIn(['alpha'], PLAIN_STYLE, { TOOL_APPROVAL: 'always' });
    const memory = () => readFileSync(path.join(chat.home, 'packs', 'alpha', 'MEMORY.md'), 'utf8');
    await chat.shows(LEAVE_HINT);
    const before = memory();
    chat.model.enqueue(appendCall('owner has a fern'), { text: 'Saved.' });
    chat.type('remember my fern');
    chat.end();
    // Nobody can type an answer any more: the question is not waited for (5 minutes by default).
    expect(await chat.exited).toBe(0);
    expect(chat.screen()).toContain('(type a number, 1–3 or y/a/n, to choose)');
    expect(chat.screen()).toContain('Stopped.');
    expect(memory()).toBe(before);
    expect(chat.logs('approval_granted')).toEqual([]);
  });
});
