import { describe, expect, it } from 'vitest';
import type { TextPart } from '../../src/core/ports.ts';
import type { Address } from '../../src/core/types.ts';
import type { Outbox } from '../../src/outbound/outboxes.ts';
import { createStream } from '../../src/outbound/stream.ts';
import { telegramRenderer } from '../../src/telegram/render.ts';
import { FakeClock } from '../support/fake-clock.ts';

const to = { channel: 'telegram', chatId: '1' } as unknown as Address;

/** A draft stream over an outbox that records each draft Telegram would show. */
function draftStream() {
  const clock = new FakeClock();
  const drafts: string[] = [];
  const outbox = {
    renderFor: () => telegramRenderer,
    draft: async (_to: Address, _id: number, part: TextPart) => {
      drafts.push(part.text);
    },
    dropWaiting: () => {},
  } as unknown as Outbox;
  const stream = createStream({ outbox, clock, to, mode: 'draft', intervalMs: 100 });
  const show = async (delta: string) => {
    stream.push(delta);
    clock.advance(100);
    await Promise.resolve();
    await Promise.resolve();
    return drafts.at(-1);
  };
  return { show, stream };
}

describe('streamed partial Markdown', () => {
  it('never shows a half-written mark as a literal character', async () => {
    const { show, stream } = draftStream();
    expect(await show('Correct! *')).toBe('Correct!');
    expect(await show('*bo')).toBe('Correct! <b>bo</b>');
    expect(await show('ld*')).toBe('Correct! <b>bold</b>');
    expect(await show('* and a `co')).toBe('Correct! <b>bold</b> and a <code>co</code>');
    expect(await show('de` _it')).toBe('Correct! <b>bold</b> and a <code>code</code> <i>it</i>');
    await stream.settle();
  });

  it('leaves literal text, snake_case and open code fences alone', async () => {
    const { show } = draftStream();
    expect(await show('2 * 3 = 6, see my_var_name')).toBe('2 * 3 = 6, see my_var_name');
    const fenced = draftStream();
    expect(await fenced.show('```\nconst a = `x')).toBe('<pre>const a = `x</pre>');
  });

  it('renders the final answer from its full text, unchanged', () => {
    const final = telegramRenderer.text({
      text: 'Correct! **bold** and a `code` *',
      format: 'markdown',
    });
    expect(final.map((p) => p.text)).toEqual(['Correct! <b>bold</b> and a <code>code</code> *']);
  });
});
