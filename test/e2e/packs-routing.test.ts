import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PROVIDER_UNAVAILABLE } from '../../src/core/errors.ts';
import { TOPIC_RIGHTS_HELP } from '../../src/turn/commands.ts';
import { lastUserText, systemText, userTexts } from '../fakes/model-server.ts';
import {
  ALLOWED_USER,
  FIXTURE_PACKS,
  fixturePacks,
  harnessPerTest,
  settled,
} from '../support/harness.ts';
import { inForum, pressOnLast } from '../support/user-acts.ts';

const GROUP = -100777;
const h = harnessPerTest();

const inTopic = (threadId: number, text: string) => ({ ...inForum(GROUP, threadId), text });

/** Sends `text`, waits for the pack picker it brings up, and presses `pack`. */
async function pickPack(text: string, pack: string): Promise<void> {
  h.tg.text({ userId: ALLOWED_USER, text });
  await h.tg.waitForCall('sendMessage');
  pressOnLast(h, `pack:${pack}`);
}

describe('packs and routing', () => {
  it('asks which pack first, then answers the parked message with the chosen pack only', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    const picker = await h.tg.waitForCall('sendMessage');

    expect(picker.params.reply_markup.inline_keyboard).toEqual([
      [{ text: 'Alpha Garden', callback_data: 'pack:alpha' }],
      [{ text: 'Beta Books', callback_data: 'pack:beta' }],
    ]);
    expect(h.model.requests()).toHaveLength(0);

    h.model.enqueue({ text: 'Try *Dune* next.' });
    h.tg.callback({ userId: ALLOWED_USER, data: 'pack:beta', messageId: picker.result.message_id });
    await settled(h, 2);

    const [request] = h.model.chatRequests();
    expect(lastUserText(request!)).toBe('hello there');
    const system = systemText(request!);
    for (const mark of [
      'BETA-PERSONA',
      'BETA-SKILL-ONE',
      'BETA-SKILL-TWO',
      'BETA-USER-NOTE',
      'BETA-MEMORY-NOTE',
    ])
      expect(system).toContain(mark);
    expect(system).not.toMatch(/ALPHA|Alpha Garden/);
    expect(system).not.toContain('BETA-ONE-BODY');

    expect(h.tg.calls('answerCallbackQuery')).toHaveLength(1);
    expect(h.tg.calls('editMessageText')[0]?.params).toMatchObject({
      message_id: picker.result.message_id,
      text: 'Pack: <b>Beta Books</b>',
    });
    // Two packs installed: the private reply carries the pack badge.
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Try <i>Dune</i> next.\n\n— Beta Books');
    expect(h.rows('SELECT active_pack FROM conversation_routes')).toEqual([
      { active_pack: 'beta' },
    ]);
    expect(h.rows('SELECT key FROM sessions')).toEqual([{ key: `tg:${ALLOWED_USER}:beta` }]);
  });

  it('when the parked message fails after the pick, says so once and does not replay it', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello there' });
    await h.tg.waitForCall('sendMessage');
    h.model.failNext(3, 500); // the first try and both retries
    pressOnLast(h, 'pack:alpha');
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe(PROVIDER_UNAVAILABLE);
    expect(h.rows("SELECT 1 FROM inbound_updates WHERE status != 'done'")).toHaveLength(0);
    await h.restart();
    // A replay of the parked message would run at start, ahead of this chat's next message:
    // once that message is answered, a replay would have shown.
    h.model.enqueue({ text: 'Back again.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'are you back?' });
    await settled(h, 3);
    expect(h.model.chatRequests()).toHaveLength(4);
    expect(lastUserText(h.model.chatRequests()[3]!)).toBe('are you back?');
    expect(h.tg.texts(ALLOWED_USER).filter((t) => t === PROVIDER_UNAVAILABLE)).toHaveLength(1);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain('Back again.');
  });

  it('/pack switches to the other pack and its own session', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    await pickPack('books please', 'beta');
    await settled(h, 2);
    h.tg.text({ userId: ALLOWED_USER, text: '/pack' });
    await settled(h, 3);
    pressOnLast(h, 'pack:alpha');
    await settled(h, 4);
    h.tg.text({ userId: ALLOWED_USER, text: 'plants please' });
    await settled(h, 5);

    expect(h.tg.texts(ALLOWED_USER)).toContain('Now using Alpha Garden.');
    const last = h.model.chatRequests().at(-1)!;
    expect(userTexts(last)).toEqual(['plants please']);
    expect(systemText(last)).toContain('ALPHA-PERSONA');
    expect(systemText(last)).not.toContain('BETA');
    expect(h.rows('SELECT key FROM sessions ORDER BY created_at, rowid')).toEqual([
      { key: `tg:${ALLOWED_USER}:beta` },
      { key: `tg:${ALLOWED_USER}:alpha` },
    ]);
    // A switch the user asked for is not a stale route: no warning.
    const warned = h.logs('tg_route_session_stale').filter((l) => l.level >= 40);
    expect(warned).toEqual([]);
  });

  it('keeps forum topics bound to different packs apart', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.model.setDefault((req) => ({ text: `re: ${lastUserText(req)}` }));
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: GROUP, threadId: 10, name: 'alpha garden' });
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: GROUP, threadId: 20, name: 'BETA' });
    h.tg.text(inTopic(10, 'which plants need water?'));
    h.tg.text(inTopic(20, 'what should I read?'));
    await settled(h, 4);
    h.tg.text(inTopic(10, 'and tomorrow?'));
    h.tg.text(inTopic(20, 'and after that?'));
    await settled(h, 6);

    const byThread = (thread: number) =>
      h.tg
        .calls('sendMessage')
        .filter((c) => c.params.message_thread_id === thread)
        .map((c) => c.params.text);
    // In a group each text carries its sender's name (SPEC §12).
    expect(byThread(10)).toEqual(['re: User: which plants need water?', 're: User: and tomorrow?']);
    expect(byThread(20)).toEqual(['re: User: what should I read?', 're: User: and after that?']);

    const requests = h.model.chatRequests();
    const alpha = requests.find((r) => lastUserText(r) === 'User: and tomorrow?')!;
    const beta = requests.find((r) => lastUserText(r) === 'User: and after that?')!;
    expect(userTexts(alpha)).toEqual(['User: which plants need water?', 'User: and tomorrow?']);
    expect(userTexts(beta)).toEqual(['User: what should I read?', 'User: and after that?']);
    expect(JSON.stringify(alpha.body)).not.toMatch(/BETA|read\?/);
    expect(JSON.stringify(beta.body)).not.toMatch(/ALPHA|water\?/);
  });

  it('binds a topic on first contact from the topic name quoted in the message', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.text({
      ...inTopic(30, 'hi from the garden'),
      replyTo: { message_id: 30, forum_topic_created: { name: 'Alpha Garden', icon_color: 1 } },
    });
    await settled(h, 1);
    expect(systemText(h.model.chatRequests()[0]!)).toContain('ALPHA-PERSONA');
    expect(h.tg.calls('sendMessage')).toHaveLength(1);
    expect(h.tg.calls('sendMessage')[0]?.params.reply_markup).toBeUndefined();
  });

  it('/new starts a fresh session and keeps the old one', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.tg.text({ userId: ALLOWED_USER, text: 'remember the fern' });
    await settled(h, 1);
    h.tg.text({ userId: ALLOWED_USER, text: '/new' });
    await settled(h, 2);
    h.tg.text({ userId: ALLOWED_USER, text: 'what did I say?' });
    await settled(h, 3);

    expect(h.tg.texts(ALLOWED_USER)[1]).toBe('Started a fresh session.');
    const last = h.model.chatRequests().at(-1)!;
    expect(userTexts(last)).toEqual(['what did I say?']);
    const sessions = h.rows<{ closed_at: number | null; n: number }>(
      'SELECT s.closed_at, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS n FROM sessions s ORDER BY s.created_at, s.rowid',
    );
    expect(sessions).toHaveLength(2);
    expect(sessions[0]?.closed_at).not.toBeNull();
    expect(sessions[0]?.n).toBe(2);
    expect(sessions[1]).toMatchObject({ closed_at: null, n: 2 });
    // One pack installed: no badge.
    expect(h.tg.texts(ALLOWED_USER)[0]).toBe('echo: remember the fern');
  });

  it('repoints a route whose session belongs to another key', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const now = Date.now();
    h.exec(
      "INSERT INTO sessions (id, key, pack, address, kind, created_at) VALUES ('foreign', 'tg:5:beta', 'beta', 'tg:5', 'chat', ?)",
      now,
    );
    h.exec(
      "INSERT INTO messages (session_id, turn_id, role, content, created_at) VALUES ('foreign', 't', 'user', 'SECRET OF CHAT 5', ?)",
      now,
    );
    h.exec(
      "INSERT INTO conversation_routes (address, platform, chat_id, active_pack, session_id, updated_at) VALUES (?, 'tg', ?, 'alpha', 'foreign', ?)",
      `tg:${ALLOWED_USER}`,
      ALLOWED_USER,
      now,
    );

    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await settled(h, 1);

    expect(h.logs('tg_route_session_stale').map((l) => l.level)).toEqual([40]);
    expect(userTexts(h.model.chatRequests()[0]!)).toEqual(['hello']);
    const [route] = h.rows<{ key: string }>(
      'SELECT s.key FROM conversation_routes r JOIN sessions s ON s.id = r.session_id',
    );
    expect(route?.key).toBe(`tg:${ALLOWED_USER}:alpha`);
  });

  it('/topics creates the missing topics and binds them', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.topicCreated({ userId: ALLOWED_USER, chatId: GROUP, threadId: 10, name: 'Alpha Garden' });
    h.tg.text({ ...inForum(GROUP), text: '/topics' });
    await settled(h, 2);

    const created = h.tg.calls('createForumTopic');
    expect(created.map((c) => c.params.name)).toEqual(['Beta Books']);
    const threadId = created[0]!.result.message_thread_id;
    expect(
      // The topics bound (the general chat's own row only says when a person last wrote).
      h.rows(
        'SELECT thread_id, active_pack FROM conversation_routes WHERE thread_id IS NOT NULL ORDER BY thread_id',
      ),
    ).toEqual([
      { thread_id: '10', active_pack: 'alpha' },
      { thread_id: String(threadId), active_pack: 'beta' },
    ]);
    const reply = h.tg.calls('sendMessage').at(-1)!;
    expect(reply.params.text).toContain('Created topics: Beta Books');
    expect(reply.params.message_thread_id).toBeUndefined();

    h.tg.text(inTopic(threadId, 'a book please'));
    await settled(h, 3);
    expect(systemText(h.model.chatRequests()[0]!)).toContain('BETA-PERSONA');
  });

  it('/topics explains what is missing without the right to manage topics', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    h.tg.fail('createForumTopic', {
      status: 400,
      description: 'Bad Request: not enough rights to create a topic',
    });
    h.tg.text({ ...inForum(GROUP), text: '/topics' });
    await settled(h, 1);
    expect(h.tg.texts(GROUP)).toEqual([TOPIC_RIGHTS_HELP]);
    // No topic bound (the general chat's row only says when a person last wrote).
    expect(h.rows('SELECT 1 FROM conversation_routes WHERE active_pack IS NOT NULL')).toHaveLength(
      0,
    );
  });

  it('registers core and skill commands, and a skill command pins its skill', async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    const menu = (await h.tg.waitForCall('setMyCommands')).params.commands.map(
      (c: { command: string }) => c.command,
    );
    expect(menu).toEqual([
      'start',
      'help',
      'new',
      'pack',
      'stop',
      'usage',
      'status',
      'compact',
      'topics',
      'jobs',
      'model',
      'approvals',
      'queue',
      'pair',
      'voice',
      'people',
      'home',
      'alpha_one',
      'beta_one',
    ]);

    h.tg.text({ userId: ALLOWED_USER, text: '/alpha_one' });
    await settled(h, 1);
    // The skill's instructions come with the user's message; the system prompt stays the
    // pack's, the same for every turn (prompt caching).
    const [first] = h.model.chatRequests();
    expect(lastUserText(first!)).toMatch(
      /^# Skill for this turn: alpha_one\n[\s\S]*ALPHA-ONE-BODY/,
    );
    expect(lastUserText(first!)).toMatch(/# The user's message\n\/alpha_one$/);
    expect(systemText(first!)).not.toContain('ALPHA-ONE-BODY');
    expect(systemText(first!)).not.toContain('BETA');
  });

  it("runs another pack's skill command in that pack and stays with the bound pack", async () => {
    await h.start({ SATCHEL_PACKS: FIXTURE_PACKS });
    await pickPack('/pack', 'beta');
    await settled(h, 2);

    h.tg.text({ userId: ALLOWED_USER, text: '/alpha_one water the fern' });
    await settled(h, 3);
    h.tg.text({ userId: ALLOWED_USER, text: 'what next?' });
    await settled(h, 4);

    const [skill, next] = h.model.chatRequests();
    expect(lastUserText(skill!)).toContain('ALPHA-ONE-BODY');
    expect(systemText(skill!)).toContain('ALPHA-PERSONA');
    expect(systemText(next!)).toContain('BETA-PERSONA');
    expect(systemText(next!)).not.toMatch(/ALPHA/);
    expect(userTexts(next!)).toEqual(['what next?']);
    expect(h.rows('SELECT active_pack FROM conversation_routes')).toEqual([
      { active_pack: 'beta' },
    ]);
    expect(h.rows('SELECT key FROM sessions ORDER BY key')).toEqual([
      { key: `tg:${ALLOWED_USER}:alpha` },
      { key: `tg:${ALLOWED_USER}:beta` },
    ]);
  });

  it('starts and serves when Telegram rejects the command menu', async () => {
    await h.start(
      { SATCHEL_PACKS: FIXTURE_PACKS },
      {
        beforeStart: (tg) =>
          tg.failAlways('setMyCommands', {
            status: 400,
            description: 'Bad Request: BOT_COMMAND_INVALID',
          }),
      },
    );
    await vi.waitFor(() => expect(h.logs('tg_set_commands_failed')).toHaveLength(1));
    h.tg.text({ userId: ALLOWED_USER, text: '/help' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)[0]).toContain('/topics');
  });

  it('skips a broken pack, logs it, and serves the rest', async () => {
    const dir = fixturePacks(['alpha', 'beta']);
    writeFileSync(
      path.join(dir, 'beta', 'pack.yml'),
      'name: beta\nversion: one\ndisplay_name: Beta\ndescription: x\nskills: [beta_one]\n',
    );
    await h.start({ SATCHEL_PACKS: dir });
    const [broken] = h.logs('pack_invalid');
    expect(broken?.msg).toContain(path.join(dir, 'beta', 'pack.yml'));
    expect(broken?.msg).toContain('line 2: `version` — must be a version like 1.0.0');

    h.tg.text({ userId: ALLOWED_USER, text: 'hi' });
    await settled(h, 1);
    expect(systemText(h.model.chatRequests()[0]!)).toContain('ALPHA-PERSONA');
  });
});
