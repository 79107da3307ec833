/**
 * DEFAULT_PACK on the web chat and the terminal (SPEC §3, §10, §16): the first screen marks
 * the default and a line typed without choosing goes to it, with no picker; `satchel chat`
 * starts with it too.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChat } from '../../src/chat-app.ts';
import { chatCommand } from '../../src/cli/chat.ts';
import { parseConfig } from '../../src/config/config.ts';
import { PLAIN_STYLE } from '../../src/terminal/tty.ts';
import type { Welcome } from '../../src/web/welcome.ts';
import { systemText } from '../fakes/model-server.ts';
import { shownText } from '../support/chat-client.ts';
import { chatEnv } from '../support/chat-env.ts';
import { recordingIo } from '../support/cli-io.ts';
import { fixturePacks } from '../support/harness.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const web = webChatPerTest();
const { h, start } = web;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('DEFAULT_PACK on the web chat', () => {
  it('marks the default on the first screen, and a line typed without choosing goes to it', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']), DEFAULT_PACK: 'beta' });
    const get = (path: string) => fetch(new URL(path, c.base), { headers: { cookie: c.cookie } });
    const welcome = (await (await get('/chat/welcome')).json()) as Welcome;
    expect(welcome).toMatchObject({ default: 'beta', active: 'beta' });
    expect(welcome.packs.map((p) => p.name)).toEqual(['alpha', 'beta']);

    await c.send('hello');
    const [answer] = await c.waitForBot(1);
    expect(shownText(answer!)).toBe('echo: hello\n\n— Beta Books');
    expect(systemText(h!.model.chatRequests()[0]!)).toContain('# Active pack: Beta Books');
    expect(answer!.buttons).toBeUndefined();
  });

  it('with DEFAULT_PACK empty the first screen asks for a choice and marks none', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha', 'beta']), DEFAULT_PACK: '' });
    const get = (path: string) => fetch(new URL(path, c.base), { headers: { cookie: c.cookie } });
    const welcome = (await (await get('/chat/welcome')).json()) as Welcome;
    expect(welcome.default).toBeUndefined();
    expect(welcome.active).toBeUndefined();
    await c.send('hello');
    const [picker] = await c.waitForBot(1);
    expect(shownText(picker!)).toBe('Which pack should answer here?');
  });
});

describe('DEFAULT_PACK in satchel chat', () => {
  it('naming no loaded pack, satchel chat stops with exit 1, naming the variable', async () => {
    const { env, home } = await chatEnv(['alpha', 'beta'], '', (...undo) => cleanups.push(...undo));
    const io = recordingIo({ ...env, DEFAULT_PACK: 'gamma' }, home);
    expect(await chatCommand.run([], io)).toBe(1);
    expect(io.err()).toContain(
      'satchel chat: Invalid configuration:\n- DEFAULT_PACK names "gamma", which is not a loaded pack (loaded: alpha, beta)',
    );
  });

  it('starts with the default pack: the banner names it and the first line is answered, no picker', async () => {
    const { model, env } = await chatEnv(['alpha', 'beta'], '', (...undo) =>
      cleanups.push(...undo),
    );
    let shown = '';
    const input = new PassThrough();
    const output = new Writable({
      write(chunk, _encoding, done) {
        shown += String(chunk);
        done();
      },
    });
    const chat = createChat(parseConfig({ ...env, DEFAULT_PACK: 'alpha' }), {
      input,
      output,
      errors: output,
      style: PLAIN_STYLE,
      logDestination: { write: () => {} },
    });
    const exited = chat.run();
    model.enqueue({ text: 'Water it weekly.' });
    input.write('how often for a fern?\n');
    await vi.waitFor(() => expect(shown).toContain('Water it weekly.'), { timeout: 10_000 });
    input.end();
    expect(await exited).toBe(0);
    expect(shown).toContain('satchel chat · Alpha Garden (alpha)');
    expect(shown).not.toContain('Which pack');
    expect(systemText(model.chatRequests()[0]!)).toContain('# Active pack: Alpha Garden');
  });
});
