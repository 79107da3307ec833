import { describe, expect, it } from 'vitest';
import { satchel } from '../../src/cli/commands.ts';
import type { Welcome } from '../../src/web/welcome.ts';
import { type ChatClient, shownText } from '../support/chat-client.ts';
import { recordingIo } from '../support/cli-io.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const web = webChatPerTest();

const commandsOn = async (c: ChatClient) => {
  const page = await fetch(new URL('/chat/welcome', c.base), { headers: { cookie: c.cookie } });
  return ((await page.json()) as Welcome).commands.map((m) => m.command);
};

/** `npx satchel pair CODE` in the harness's home, with `env` (the harness's, or without the bot). */
async function satchelPair(env: Record<string, string>, code: string) {
  const io = recordingIo(env, web.h.home);
  const exit = await satchel(['pair', code], io);
  return { exit, out: io.out(), err: io.err() };
}

describe('no Telegram-only text where there is no Telegram (SPEC §16)', () => {
  it('the web chat alone offers no /pair on its first screen; with the bot it does', async () => {
    const alone = await web.start({ TELEGRAM_BOT_TOKEN: '' });
    const commands = await commandsOn(alone);
    expect(commands).toEqual(expect.arrayContaining(['help', 'pack', 'new']));
    expect(commands).not.toContain('pair');
    // Nor does /help.
    await alone.connect();
    await alone.send('/help');
    const [help] = (await alone.waitForBot(1)).map(shownText);
    expect(help).toContain('/new');
    expect(help).not.toContain('/pair');
    await web.h.stop();

    const withBot = await web.start();
    expect(await commandsOn(withBot)).toContain('pair');
    await withBot.connect();
    await withBot.send('/help');
    expect((await withBot.waitForBot(1)).map(shownText)[0]).toContain('/pair');
  });

  it('npx satchel pair CODE without a bot says there is none to give codes; with one it names where codes are listed', async () => {
    await web.start({ TELEGRAM_BOT_TOKEN: '' });
    const { TELEGRAM_BOT_TOKEN: _, ...noBot } = web.h.env;
    const alone = await satchelPair(noBot, 'ABCD2345');
    expect(alone.exit).toBe(1);
    expect(alone.err).toContain(
      'No pending code ABCD2345. Codes are given to people who write to your bot, and no bot is set up here',
    );
    expect(alone.err).not.toContain('send /pair');

    const withBot = await satchelPair(
      { ...noBot, TELEGRAM_BOT_TOKEN: '123:test-token' },
      'ABCD2345',
    );
    expect(withBot.err).toContain(
      'No pending code ABCD2345. Check it, or send /pair in your private chat on Telegram to list the pending codes.',
    );
  });
});
