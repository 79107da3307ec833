import { describe, expect, it } from 'vitest';
import { stoppedAnswer } from '../../src/agent/cut-answer.ts';
import { AbortedError, StopRequested } from '../../src/core/errors.ts';
import { type ChatUpdate, createTranscript, type Entry } from '../../src/web/transcript.ts';

const user = (id: number, text: string, source?: string): Entry => ({
  kind: 'user',
  id,
  text,
  at: id,
  ...(source ? { source } : {}),
});
const bot = (id: number, text: string): Entry => ({ kind: 'bot', id, text, at: id });

describe('the web transcript: where an answer goes', () => {
  it('puts an answer where its draft began, above a line typed while it was written', () => {
    const t = createTranscript(10);
    const updates: ChatUpdate[] = [];
    t.subscribe((u) => updates.push(u));
    t.add(user(1, 'tell me'));
    t.draft({ text: 'one two' });
    t.add(user(2, 'and then this'));
    expect(t.snapshot().draftBefore).toBe(2);
    t.add(bot(3, 'one two\n\nStopped.'));
    expect(t.snapshot().entries.map((e) => e.id)).toEqual([1, 3, 2]);
    expect(updates.at(-1)).toMatchObject({ type: 'entry', before: 2 });
    // The next answer, with no draft open, goes last.
    t.add(bot(4, 'echo'));
    expect(t.snapshot().entries.map((e) => e.id)).toEqual([1, 3, 2, 4]);
  });

  it("puts a failure line at the end of its message's exchange", () => {
    const t = createTranscript(10);
    t.add(user(1, 'first', 'web:a'));
    t.add(user(2, 'second', 'web:b'));
    t.add(bot(3, 'refused'), 'web:a');
    expect(t.snapshot().entries.map((e) => e.id)).toEqual([1, 3, 2]);
    // Its message is the last: the line goes last.
    t.add(bot(4, 'refused again'), 'web:b');
    expect(t.snapshot().entries.map((e) => e.id)).toEqual([1, 3, 2, 4]);
  });
});

describe('a stopped answer', () => {
  const stopped = () => {
    const controller = new AbortController();
    controller.abort(new StopRequested());
    return controller.signal;
  };

  it('keeps the streamed text, marked as stopped', () => {
    expect(stoppedAnswer(stopped(), ' one two ')).toBe('one two\n\n_Stopped._');
  });

  it('is no answer before any text, after a shutdown, or without a stop', () => {
    expect(stoppedAnswer(stopped(), '  ')).toBeUndefined();
    expect(stoppedAnswer(stopped(), undefined)).toBeUndefined();
    const shutdown = new AbortController();
    shutdown.abort(new AbortedError('shutdown'));
    expect(stoppedAnswer(shutdown.signal, 'text')).toBeUndefined();
    expect(stoppedAnswer(new AbortController().signal, 'text')).toBeUndefined();
  });
});
