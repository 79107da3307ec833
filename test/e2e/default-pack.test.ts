/**
 * DEFAULT_PACK (SPEC §1, §2 step 6, §3, §5, §12) on Telegram: a conversation with no binding
 * starts with it on its first message, with no picker; /start names it and how /pack
 * switches; /pack switches; a topic named after a pack still binds to it, while a topic bound
 * through the default follows GROUP_REPLY; an empty DEFAULT_PACK brings the picker back; one
 * naming no loaded pack stops the start, and the built-in `assistant` missing falls back to
 * the picker with a warning.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { lastUserText, systemText } from '../fakes/model-server.ts';
import { ALLOWED_USER, FIXTURE_PACKS, harnessPerTest, settled } from '../support/harness.ts';
import { pickPackByButton } from '../support/pack-picker.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// Made first, so its folders are removed after the harness that reads them has closed.
const temp = tempDirs('satchel-default-pack-');
const h = harnessPerTest();
const FORUM = -100777;
const BOT = '@satchel_test_bot';
const inTopic = (threadId: number) => ({
  chatId: FORUM,
  chatType: 'supergroup' as const,
  isForum: true,
  threadId,
});

describe('DEFAULT_PACK on Telegram', () => {
  it('answers the first message with the default pack, no picker; /pack switches', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS, DEFAULT_PACK: 'beta' });
    h.model.enqueue({ text: 'Try Dune next.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    await settled(h, 1);

    const sent = h.tg.calls('sendMessage');
    expect(sent.map((c) => c.params.reply_markup)).toEqual([undefined]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Try Dune next.\n\n— Beta Books']);
    const [request] = h.model.chatRequests();
    expect(lastUserText(request!)).toBe('hello there');
    expect(systemText(request!)).toContain('# Active pack: Beta Books');
    expect(h.rows('SELECT active_pack, via_default FROM conversation_routes')).toEqual([
      { active_pack: 'beta', via_default: 1 },
    ]);

    // /pack and a press: alpha answers from now on, in its own session.
    await pickPackByButton(h, 'alpha', 1);
    h.model.enqueue({ text: 'Water the fern.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'and now?' });
    await settled(h, 4);
    expect(systemText(h.model.chatRequests().at(-1)!)).toContain('# Active pack: Alpha Garden');
    expect(h.rows('SELECT active_pack, via_default FROM conversation_routes')).toEqual([
      { active_pack: 'alpha', via_default: 0 },
    ]);
    expect(h.rows('SELECT key FROM sessions ORDER BY key')).toEqual([
      { key: `tg:${ALLOWED_USER}:alpha` },
      { key: `tg:${ALLOWED_USER}:beta` },
    ]);
  });

  it('/start names the pack that answers and how /pack switches; with DEFAULT_PACK empty, the picker', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS, DEFAULT_PACK: 'beta' });
    h.tg.text({ userId: ALLOWED_USER, text: '/start' });
    await settled(h, 1);
    const hello = h.tg.calls('sendMessage').at(-1)!.params;
    expect(hello.reply_markup).toBeUndefined();
    expect(hello.text).toContain(
      'Hi! I am satchel, your personal assistant. Beta Books answers here:',
    );
    expect(hello.text).toContain('Send /pack to switch to another pack.');
    expect(h.model.chatRequests()).toHaveLength(0);

    await h.close();
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS, DEFAULT_PACK: '' });
    h.tg.text({ userId: ALLOWED_USER, text: '/start' });
    await settled(h, 1);
    const picker = h.tg.calls('sendMessage').at(-1)!.params;
    expect(picker.text).toBe(
      'Hi! I am satchel, your personal assistant. Which pack should I use here?',
    );
    expect(picker.reply_markup.inline_keyboard).toEqual([
      [{ text: 'Alpha Garden', callback_data: 'pack:alpha' }],
      [{ text: 'Beta Books', callback_data: 'pack:beta' }],
    ]);
    // And a message parks behind the picker, unanswered.
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    await h.tg.waitForCall(
      'sendMessage',
      (c) => c.params.text === 'Which pack should answer here?',
    );
    expect(h.model.chatRequests()).toHaveLength(0);
  });

  it('the built-in default missing among several packs: the picker, and a warning naming it', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    expect(h.logs('default_pack_missing')).toEqual([
      expect.objectContaining({ pack: 'assistant', level: 40 }),
    ]);
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    const picker = await h.tg.waitForCall('sendMessage');
    expect(picker.params.text).toBe('Which pack should answer here?');
  });

  it('a DEFAULT_PACK naming no loaded pack stops the start, naming the variable', () => {
    const config = parseConfig({
      SATCHEL_HOME: temp(),
      SATCHEL_PACKS: FIXTURE_PACKS,
      OPENAI_API_KEY: 'sk-test',
      DEFAULT_PACK: 'gamma',
      DASHBOARD_PORT: '0',
      LOG_LEVEL: 'silent',
    });
    expect(() => createApp(config, { edges: () => [] })).toThrow(
      /DEFAULT_PACK names "gamma", which is not a loaded pack \(loaded: alpha, beta\)/,
    );
  });
});

describe('DEFAULT_PACK in forum topics', () => {
  it('a topic named after the default pack, its name quoted in a message, is that pack’s workspace', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS, DEFAULT_PACK: 'beta' });
    h.model.enqueue({ text: 'Read Dune.' }, { text: 'Then Hyperion.' });
    h.tg.text({
      userId: ALLOWED_USER,
      ...inTopic(30),
      text: 'what next?',
      replyTo: { message_id: 30, forum_topic_created: { name: 'Beta Books', icon_color: 1 } },
    });
    await settled(h, 1);
    h.tg.text({ userId: ALLOWED_USER, ...inTopic(30), text: 'and after that?' });
    await settled(h, 2);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(h.rows('SELECT active_pack, via_default FROM conversation_routes')).toEqual([
      { active_pack: 'beta', via_default: 0 },
    ]);
  });

  it('a topic named after a pack binds to it and answers everything; one bound through the default follows GROUP_REPLY', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS, DEFAULT_PACK: 'beta' });
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: FORUM, threadId: 10, name: 'Alpha Garden' });
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: FORUM, threadId: 20, name: 'Plans' });
    await settled(h, 2);

    // The pack's own topic: every message is a prompt.
    h.model.enqueue({ text: 'Roses like sun.' });
    h.tg.text({ userId: ALLOWED_USER, ...inTopic(10), text: 'what about roses?' });
    await settled(h, 3);
    expect(systemText(h.model.chatRequests().at(-1)!)).toContain('# Active pack: Alpha Garden');

    // Another topic: not addressed, not answered; a mention gets the default pack.
    h.tg.text({ userId: ALLOWED_USER, ...inTopic(20), text: 'lunch at noon?' });
    await settled(h, 4);
    expect(h.model.chatRequests()).toHaveLength(1);
    h.model.enqueue({ text: 'Read Dune.' });
    h.tg.text({ userId: ALLOWED_USER, ...inTopic(20), text: `${BOT} a book for the weekend?` });
    await settled(h, 5);
    expect(systemText(h.model.chatRequests().at(-1)!)).toContain('# Active pack: Beta Books');
    // Bound through the default, it still follows GROUP_REPLY: a plain message is overheard.
    h.tg.text({ userId: ALLOWED_USER, ...inTopic(20), text: 'see you all' });
    await settled(h, 6);
    expect(h.model.chatRequests()).toHaveLength(2);
    expect(
      h.rows(
        'SELECT thread_id, active_pack, via_default FROM conversation_routes ORDER BY thread_id',
      ),
    ).toEqual([
      { thread_id: '10', active_pack: 'alpha', via_default: 0 },
      { thread_id: '20', active_pack: 'beta', via_default: 1 },
    ]);
  });
});
