import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChat, LEAVE_HINT } from '../../src/chat-app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { PLAIN_STYLE, type TerminalStyle, TTY_STYLE } from '../../src/terminal/tty.ts';
import { FakeModel } from '../fakes/model-server.ts';
import { fixturePacks, TEST_OPENAI_KEY } from '../support/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `satchel chat` in this process, on a stream of typed lines and a recorded screen. */
async function chatIn(packs: string[], style: TerminalStyle) {
  const model = await FakeModel.start();
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-chat-'));
  cleanups.push(
    () => model.stop(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const config = parseConfig(
    {
      SATCHEL_HOME: home,
      SATCHEL_PACKS: fixturePacks(packs),
      OPENAI_API_KEY: TEST_OPENAI_KEY,
      OPENAI_BASE_URL: `${model.url}/v1`,
      LLM_MODEL: 'gpt-4.1-mini',
      BATCH_WINDOW_MS: '0',
      SATCHEL_TIMEZONE: 'UTC',
    },
    { telegram: false },
  );
  let shown = '';
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
    logDestination: { write: () => {} },
  });
  const exited = chat.run();
  return {
    type: (line: string) => input.write(`${line}\n`),
    shows: (text: string) =>
      vi.waitFor(() => expect(shown).toContain(text), { timeout: 10_000, interval: 20 }),
    screen: () => shown,
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
