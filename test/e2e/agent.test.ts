import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/store/sqlite.ts';
import { notShown } from '../../src/tools/ask-user.ts';
import { ALREADY_ANSWERED, NOT_FOR_YOU } from '../../src/tools/asks.ts';
import { lastUserText, type RecordedRequest, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();

/** Tool results the model received, in order (OpenAI format). */
function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

describe('the agent loop', () => {
  it('writes with db_write, reads with db_query, answers, and books three ledger rows', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: { action: 'insert', table: 'plants', values: { name: 'fern' } },
          },
        ],
        usage: { input: 100, output: 20 },
      },
      {
        toolCalls: [{ name: 'db_query', arguments: { sql: 'SELECT name FROM plants' } }],
        usage: { input: 140, output: 15 },
      },
      { text: 'You have a **fern**.', usage: { input: 180, output: 8 } },
    );
    h.say('I bought a fern');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual(['You have a <b>fern</b>.\n\n✓ 1 row saved']);
    const db = new Database(path.join(h.home, 'packs', 'alpha', 'pack.db'), { readonly: true });
    expect(db.prepare('SELECT name FROM plants').all()).toEqual([{ name: 'fern' }]);
    db.close();

    const requests = h.model.chatRequests();
    expect(requests).toHaveLength(3);
    expect(
      requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual([
      'memory',
      'skill_view',
      'db_query',
      'db_write',
      'send_message',
      'ask_user',
      'schedule',
    ]);
    expect(toolResults(requests[2]!)[1]).toContain('fern');
    const usage = h.rows<{
      input_tokens: number;
      output_tokens: number;
      cost_usd: number;
      turn_id: string;
      pack: string;
    }>('SELECT input_tokens, output_tokens, cost_usd, turn_id, pack FROM usage_events ORDER BY id');
    expect(usage.map((u) => [u.input_tokens, u.output_tokens])).toEqual([
      [100, 20],
      [140, 15],
      [180, 8],
    ]);
    for (const u of usage) expect(u.cost_usd).toBeGreaterThan(0);
    expect(new Set(usage.map((u) => u.turn_id)).size).toBe(1);
    expect(usage[0]?.pack).toBe('alpha');
    const roles = h
      .rows<{ role: string }>('SELECT role FROM messages ORDER BY id')
      .map((r) => r.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('stores the message while the model thinks, before the turn’s tool call and answer', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    // The model thinks until the test has looked (an event, not a fixed delay).
    let release = () => {};
    const looked = new Promise<void>((resolve) => (release = resolve));
    h.model.enqueue(
      { toolCalls: [{ name: 'memory', arguments: { action: 'read' } }], until: looked },
      { text: 'Noted.' },
    );
    h.say('remember the fern');
    const request = await h.model.waitForRequest(1);
    expect(lastUserText(request)).toBe('remember the fern');
    const stored = () => h.rows<{ role: string }>('SELECT role FROM messages ORDER BY id');
    // Stored before the model was called (SPEC §2): there while the model is still thinking.
    expect(stored()).toEqual([{ role: 'user' }]);
    expect(h.model.chatRequests()[0]?.endedAt).toBeUndefined();
    release();
    await settled(h, 1);
    expect(stored().map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('sends a message the crashed run had stored once, not twice', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.say('hello');
    await settled(h, 1);
    const [session] = h.rows<{ id: string }>('SELECT id FROM sessions');
    const next = h.say('the pot is cracked') + 1;
    await settled(h, 2);
    // As if a run stored this update's message and died before it answered.
    h.exec(
      `INSERT INTO messages (session_id, turn_id, role, content, source_key, created_at)
       VALUES (?, 'crashed', 'user', 'and the fern is dry', ?, 0)`,
      session!.id,
      `tg:update:${next}`,
    );
    h.tg.text({ userId: ALLOWED_USER, text: 'and the fern is dry' });
    await settled(h, 3);
    const request = h.model.chatRequests()[2]!;
    expect(userTexts(request).filter((t) => t === 'and the fern is dry')).toHaveLength(1);
    expect(h.rows('SELECT id FROM messages WHERE content = ?', 'and the fern is dry')).toHaveLength(
      1,
    );
  });

  it('turns refused and hostile tool calls into errors the model reads, and goes on', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'a', name: 'db_query', arguments: { sql: "ATTACH '../../satchel.db' AS core" } },
          { id: 'b', name: 'db_query', arguments: { sql: 'DELETE FROM plants' } },
          {
            id: 'c',
            name: 'db_write',
            arguments: { action: 'insert', table: 'sessions', values: { id: 'x' } },
          },
          {
            id: 'd',
            name: 'db_write',
            arguments: { action: 'insert', table: 'plants', values: { colour: 'red' } },
          },
          { id: 'e', name: 'shell', arguments: { cmd: 'rm -rf /' } },
          { id: 'f', name: 'memory', arguments: { action: 'burn' } },
        ],
      },
      { text: 'I could not do that.' },
    );
    h.say('try everything');
    await settled(h, 1);

    const results = toolResults(h.model.chatRequests()[1]!);
    expect(results).toHaveLength(6);
    for (const result of results) expect(result).toMatch(/^Error: /);
    expect(results[2]).toContain('sessions');
    expect(results[3]).toContain('colour');
    expect(results[4]).toContain('unknown tool "shell"');
    expect(results[5]).toContain('invalid arguments');
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['I could not do that.']);
    expect(h.logs('tool_error')).toHaveLength(6);
    expect(h.rows('SELECT 1 FROM sessions')).toHaveLength(1);
  });

  it('asks with buttons and continues with the pressed option', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: { question: 'Water the fern now?', options: ['Yes', 'Later'] },
          },
        ],
      },
      { text: 'Fine, later.' },
    );
    h.say('fern check');
    const question = await h.tg.waitForCall('sendMessage', (c) => Boolean(c.params.reply_markup));
    expect(question.params.text).toBe('Water the fern now?');
    const [[, later]] = [question.params.reply_markup.inline_keyboard.flat()];
    h.tg.callback({
      userId: ALLOWED_USER,
      data: later.callback_data,
      messageId: question.result.message_id,
    });
    await settled(h, 2);

    expect(toolResults(h.model.chatRequests()[1]!)).toEqual(['The user chose: Later']);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Fine, later.');
    // The question now shows the choice, and its buttons are gone.
    const [edit] = h.tg.calls('editMessageText');
    expect(edit?.params).toMatchObject({
      message_id: question.result.message_id,
      text: 'Water the fern now?\n\n→ <b>Later</b>',
    });
    expect(edit?.params.reply_markup).toBeUndefined();

    // A second tap (an old client still showing the buttons) hears it was answered.
    h.tg.callback({
      userId: ALLOWED_USER,
      data: later.callback_data,
      messageId: question.result.message_id,
    });
    const answers = await h.tg.waitForCalls('answerCallbackQuery', 2);
    expect(answers.at(-1)?.params.text).toBe(ALREADY_ANSWERED);
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it('takes an answer only from the asker, in the chat and topic where it was asked', async () => {
    const colleague = 222;
    const group = -100777;
    await h.start({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      ALLOWED_USER_IDS: `${ALLOWED_USER},${colleague}`,
    });
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: { question: 'Water the fern now?', options: ['Yes', 'Later'] },
          },
        ],
      },
      { text: 'Fine, later.' },
    );
    const inTopic = { chatId: group, chatType: 'supergroup' as const, isForum: true, threadId: 7 };
    h.tg.text({ userId: ALLOWED_USER, ...inTopic, text: '@satchel_test_bot fern check' });
    const question = await h.tg.waitForCall('sendMessage', (c) => Boolean(c.params.reply_markup));
    expect(question.params).toMatchObject({ chat_id: group, message_thread_id: 7 });
    const [yes, later] = question.params.reply_markup.inline_keyboard.flat();
    const messageId = question.result.message_id;

    // The asker in their private chat, a colleague in the topic, the asker in another topic
    // and in the group's General topic: none of these presses answers.
    h.tg.callback({ userId: ALLOWED_USER, data: yes.callback_data });
    h.tg.callback({ userId: colleague, chatId: group, messageId, data: yes.callback_data });
    h.tg.callback({
      userId: ALLOWED_USER,
      chatId: group,
      messageId,
      threadId: 8,
      data: yes.callback_data,
    });
    h.tg.callback({
      userId: ALLOWED_USER,
      chatId: group,
      messageId,
      threadId: 1,
      data: yes.callback_data,
    });
    const refused = await h.tg.waitForCalls('answerCallbackQuery', 4);
    // The colleague, where it was asked, hears whom it is for (SPEC §12).
    expect(refused.map((c) => c.params.text)).toEqual([
      NOT_FOR_YOU,
      'This question is for User.',
      NOT_FOR_YOU,
      NOT_FOR_YOU,
    ]);
    expect(h.model.chatRequests()).toHaveLength(1);

    h.tg.callback({ userId: ALLOWED_USER, chatId: group, messageId, data: later.callback_data });
    await settled(h, 6);
    expect(toolResults(h.model.chatRequests()[1]!)).toEqual(['The user chose: Later']);
    expect(h.tg.calls('answerCallbackQuery').at(-1)?.params.text).toBeUndefined();
    expect(h.model.chatRequests()).toHaveLength(2);
  });

  it('/stop while a question waits ends the turn, with no call and no made-up answer', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue({
      toolCalls: [{ name: 'ask_user', arguments: { question: 'Which?', options: ['A', 'B'] } }],
    });
    h.say('pick for me');
    const question = await h.tg.waitForCall('sendMessage', (c) => Boolean(c.params.reply_markup));
    h.say('/stop');
    await settled(h, 2);

    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Stopped.');
    expect(h.model.chatRequests()).toHaveLength(1);
    // No made-up "no answer" result is stored for the question the user never got to answer.
    expect(h.rows("SELECT content FROM messages WHERE role = 'tool'")).toEqual([]);
    const [[first]] = [question.params.reply_markup.inline_keyboard.flat()];
    h.tg.callback({ userId: ALLOWED_USER, data: first.callback_data });
    const answered = await h.tg.waitForCall('answerCallbackQuery');
    expect(answered.params.text).toBe('This question has expired.');
    expect(h.model.chatRequests()).toHaveLength(1);
  });

  it('tells the model at once when the question could not be sent, instead of waiting', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.tg.failWhen(
      'sendMessage',
      (p) => Boolean(p.reply_markup),
      { status: 400, description: 'Bad Request: chat not found' },
      Infinity,
    );
    h.model.enqueue(
      {
        toolCalls: [{ name: 'ask_user', arguments: { question: 'Which?', options: ['A', 'B'] } }],
      },
      { text: 'I will pick A myself.' },
    );
    h.say('pick for me');
    await settled(h, 1);

    expect(toolResults(h.model.chatRequests()[1]!)).toEqual([`Error: ${notShown('Telegram')}`]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['I will pick A myself.']);
  });

  it('sends a keyboard with send_message; a press comes back as the user saying it', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'send_message',
            arguments: { kind: 'keyboard', text: 'Which plant?', buttons: ['Fern', 'Cactus'] },
          },
        ],
      },
      { text: 'Tap one.' },
      { text: 'Cactus it is.' },
    );
    h.say('show plants');
    await settled(h, 1);
    const keyboard = h.tg.calls('sendMessage').find((c) => c.params.reply_markup)!;
    expect(keyboard.params.text).toBe('Which plant?');
    expect(toolResults(h.model.chatRequests()[1]!)).toEqual(['sent']);

    h.tg.callback({
      userId: ALLOWED_USER,
      data: 'say:Cactus',
      messageId: keyboard.result.message_id,
    });
    await settled(h, 2);
    expect(lastUserText(h.model.chatRequests()[2]!)).toBe('Cactus');
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Cactus it is.');
  });

  it('refuses a workspace symlink to the core database and a missing file, queueing nothing', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const files = path.join(h.home, 'packs', 'alpha', 'files');
    symlinkSync(path.join(h.home, 'satchel.db'), path.join(files, 'notes.db'));
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'a', name: 'send_message', arguments: { kind: 'document', path: 'notes.db' } },
          { id: 'b', name: 'send_message', arguments: { kind: 'document', path: 'gone.pdf' } },
        ],
      },
      { text: 'I cannot send those.' },
    );
    h.say('send me the files');
    await settled(h, 1);

    expect(toolResults(h.model.chatRequests()[1]!)).toEqual([
      'Error: "path" must be a file inside the pack workspace (files/)',
      'Error: there is no file "gone.pdf" in the pack workspace (files/)',
    ]);
    expect(h.tg.calls('sendDocument')).toEqual([]);
    expect(h.rows("SELECT 1 FROM outbox WHERE kind <> 'text'")).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['I cannot send those.']);
  });

  it('/stop aborts a slow stream, says so, and the queued message is answered', async () => {
    await h.start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    h.model.enqueue(
      { text: 'a b c d e f g h i j', chunks: 10, chunkDelayMs: 400 },
      { text: 'second answer' },
    );
    h.say('tell me a long story');
    await h.model.waitForRequest(1);
    h.say('and then this');
    h.say('/stop');
    const aborted = await h.model.waitForAbort();
    expect(lastUserText(aborted)).toBe('tell me a long story');
    await settled(h, 3);

    const texts = h.tg.texts(ALLOWED_USER);
    expect(texts).toContain('Stopped.');
    expect(texts.at(-1)).toBe('second answer');
    expect(texts.indexOf('Stopped.')).toBeLessThan(texts.indexOf('second answer'));
    expect(lastUserText(h.model.chatRequests()[1]!)).toBe('and then this');
  });

  it('falls back once when the primary keeps answering 503', async () => {
    await h.start(
      ({ model }) => ({
        SATCHEL_PACKS: fixturePacks(['alpha']),
        LLM_FALLBACK: 'groq:llama-3.3-70b-versatile',
        GROQ_BASE_URL: model.url,
      }),
      { app: { modelRetry: { retries: 2, delayMs: () => 0 } } },
    );
    h.model.failNext(3, 503, { provider: 'openai' });
    h.model.enqueue({ text: 'from the fallback' });
    h.say('hello');
    await settled(h, 1);

    const providers = h.model.chatRequests().map((r) => r.provider);
    expect(providers).toEqual(['openai', 'openai', 'openai', 'groq']);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['from the fallback']);
    expect(h.logs('provider_failover')).toHaveLength(1);
    const primaryFailed = { provider: 'openai', model: 'gpt-4.1-mini', ok: 0 };
    expect(h.rows('SELECT provider, model, ok FROM usage_events ORDER BY id')).toEqual([
      primaryFailed,
      primaryFailed,
      primaryFailed,
      { provider: 'groq', model: 'llama-3.3-70b-versatile', ok: 1 },
    ]);
  });

  it('records a model without a known price as unpriced, never as $0', async () => {
    await h.start({
      SATCHEL_PACKS: fixturePacks(['alpha']),
      LLM_MODEL: 'mystery-model-7',
    });
    h.say('hi');
    await settled(h, 1);
    expect(h.rows('SELECT cost_usd, price_known FROM usage_events')).toEqual([
      { cost_usd: null, price_known: 0 },
    ]);
    h.say('/usage');
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain('1 call(s) with unknown price');
  });
});
