/**
 * `/model`, `/status` and `/usage footer` (SPEC §14), end to end through the fake Telegram:
 * a pick applies to its chat or forum topic until `/model default`; which model answers is
 * that pick, else the pack's `model`, else LLM_MODEL, and `/status` names it; the footer
 * is one line under each answer in the chat that turned it on, above the pack badge.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeModel } from '../fakes/model-server.ts';
import {
  ALLOWED_USER,
  FIXTURE_PACKS,
  fixturePacks,
  harnessPerTest,
  settled,
} from '../support/harness.ts';
import { inForum, pressOnLast } from '../support/user-acts.ts';

const h = harnessPerTest();
const GROUP = -1005551234;
const TOPIC = 42;
const OTHER_TOPIC = 43;

type Button = { text: string; callback_data: string };
const buttons = (call: { params: Record<string, unknown> }): Button[] =>
  ((call.params.reply_markup as { inline_keyboard?: Button[][] })?.inline_keyboard ?? []).flat();

/** Sends `text` in the forum group's topic `threadId`; returns its update id. */
const inTopic = (threadId: number, text: string) =>
  h.tg.text({ ...inForum(GROUP, threadId), text });

/** The owner's catalog of these tests: OpenAI chat models beside the bundled default. */
function ownerCatalog(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'satchel-models-')), 'models.yaml');
  writeFileSync(
    file,
    [
      'openai:gpt-4.1: { input: 2, cached_input: 0.5, output: 8, images: true }',
      'openai:gpt-4.1-nano: { input: 0.1, cached_input: 0.025, output: 0.4, images: true }',
      'openai:gpt-4o: { input: 2.5, cached_input: 1.25, output: 10, images: true }',
      'openai:gpt-4o-mini: { input: 0.15, cached_input: 0.075, output: 0.6, images: true }',
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * What the fake OpenAI lists at GET /v1/models in these tests: the catalog's chat models, two
 * the catalog knows are speech models, and one it does not know (a fine-tune).
 */
const LISTED = [
  'gpt-4o-mini-tts',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'ft:gpt-4.1-mini:acme',
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4o-mini-transcribe',
  'o4-mini',
];
const listing = {
  beforeStart: (_tg: unknown, model: FakeModel) => model.setModels('openai', LISTED),
};

const lastText = (chatId: number) => h.tg.texts(chatId).at(-1) ?? '';
const lastModel = () => h.model.chatRequests().at(-1)?.body.model;

describe('/model', () => {
  it('offers the configured providers’ listed chat models; a pick answers this chat until /model default', async () => {
    await h.start(
      { SATCHEL_MODELS: ownerCatalog(), SATCHEL_PACKS: fixturePacks(['alpha']) },
      listing,
    );
    h.say('/model');
    await settled(h, 1);
    const menu = h.tg.calls('sendMessage').at(-1)!;
    expect(menu.params.text).toBe(
      'This chat is answered by openai:gpt-4.1-mini (the default). Pick a model for this chat:',
    );
    const offered = buttons(menu).map((b) => b.text);
    // Only OpenAI has a key here: no Gemini or Groq model is offered; of its list, no speech
    // model; the priced first, then the one without a price, marked.
    expect(offered).toEqual([
      'openai:gpt-4.1',
      'openai:gpt-4.1-mini',
      'openai:gpt-4.1-nano',
      'openai:gpt-4o',
      'openai:gpt-4o-mini',
      'openai:o4-mini',
      'openai:ft:gpt-4.1-mini:acme (no price)',
      '✓ Default (openai:gpt-4.1-mini)',
    ]);
    expect(h.model.requests({ kind: 'models' })).toHaveLength(1);

    const pick = buttons(menu).find((b) => b.text === 'openai:gpt-4.1')!;
    h.tg.callback({
      userId: ALLOWED_USER,
      data: pick.callback_data,
      messageId: menu.result.message_id,
    });
    await settled(h, 2);
    const edit = h.tg.calls('editMessageText').at(-1)!;
    expect(edit.params).toMatchObject({
      message_id: menu.result.message_id,
      text: 'This chat now uses openai:gpt-4.1. Send /model default to go back.',
    });
    expect(h.rows('SELECT model FROM conversation_routes')).toEqual([{ model: 'openai:gpt-4.1' }]);

    h.say('hello');
    await settled(h, 3);
    expect(lastModel()).toBe('gpt-4.1');
    h.say('/status');
    await settled(h, 4);
    expect(lastText(ALLOWED_USER)).toContain(
      'Model: openai:gpt-4.1 (picked with /model for this chat)',
    );

    // After a restart the pick still holds: it is stored with the route.
    await h.restart();
    h.say('/model default');
    await settled(h, 5);
    expect(lastText(ALLOWED_USER)).toBe(
      'Back to the default here: openai:gpt-4.1-mini (the default).',
    );
    h.say('hello again');
    await settled(h, 6);
    expect(lastModel()).toBe('gpt-4.1-mini');
  });

  it("names the pack's model in /status, and it answers until the chat picks another", async () => {
    await h.start(
      {
        SATCHEL_MODELS: ownerCatalog(),
        SATCHEL_PACKS: fixturePacks(['alpha'], 'model: openai:gpt-4o-mini\n'),
      },
      listing,
    );
    h.say('/status');
    await settled(h, 1);
    expect(lastText(ALLOWED_USER)).toContain("Model: openai:gpt-4o-mini (the pack's model)");
    h.say('hi');
    await settled(h, 2);
    expect(lastModel()).toBe('gpt-4o-mini');

    h.say('/model gpt-4.1-nano');
    await settled(h, 3);
    expect(lastText(ALLOWED_USER)).toBe(
      'This chat now uses openai:gpt-4.1-nano. Send /model default to go back.',
    );
    h.say('hi again');
    await settled(h, 4);
    expect(lastModel()).toBe('gpt-4.1-nano');
    h.say('/model gemini:gemini-2.5-pro');
    await settled(h, 5);
    expect(lastText(ALLOWED_USER)).toBe(
      "I can't use gemini:gemini-2.5-pro here. Send /model to see the models you can pick.",
    );
    h.say('/model default');
    await settled(h, 6);
    expect(lastText(ALLOWED_USER)).toBe(
      "Back to the default here: openai:gpt-4o-mini (the pack's model).",
    );
  });

  it('applies a pick to its forum topic only', async () => {
    await h.start(
      {
        // The topics are bound by their first message: every message there is a prompt.
        GROUP_REPLY: 'all',
        SATCHEL_MODELS: ownerCatalog(),
        SATCHEL_PACKS: fixturePacks(['alpha']),
      },
      listing,
    );
    inTopic(TOPIC, '/model openai:gpt-4o');
    await settled(h, 1);
    expect(h.tg.sent(GROUP).at(-1)!.params).toMatchObject({
      text: 'This chat now uses openai:gpt-4o. Send /model default to go back.',
      message_thread_id: TOPIC,
    });
    inTopic(TOPIC, 'hello topic');
    await settled(h, 2);
    expect(lastModel()).toBe('gpt-4o');
    inTopic(OTHER_TOPIC, 'hello other topic');
    await settled(h, 3);
    expect(lastModel()).toBe('gpt-4.1-mini');
    inTopic(TOPIC, '/status');
    await settled(h, 4);
    expect(h.tg.sent(GROUP).at(-1)!.params).toMatchObject({ message_thread_id: TOPIC });
    expect(lastText(GROUP)).toContain('Model: openai:gpt-4o (picked with /model for this chat)');
    inTopic(OTHER_TOPIC, '/status');
    await settled(h, 5);
    expect(lastText(GROUP)).toContain('Model: openai:gpt-4.1-mini (the default)');
  });

  it('is in the command menu and /help', async () => {
    await h.start({ SATCHEL_MODELS: ownerCatalog(), SATCHEL_PACKS: fixturePacks(['alpha']) });
    const menu = (await h.tg.waitForCall('setMyCommands')).params.commands as {
      command: string;
    }[];
    expect(menu.map((c) => c.command)).toContain('model');
    h.say('/help');
    await settled(h, 1);
    expect(lastText(ALLOWED_USER)).toContain('/model — Choose the chat model for this chat');
  });
});

describe('/usage footer', () => {
  it("puts the turn's tokens and cost and today's total under each answer, above the pack badge", async () => {
    await h.start({ SATCHEL_MODELS: ownerCatalog(), SATCHEL_PACKS: FIXTURE_PACKS });
    h.say('/pack');
    await settled(h, 1);
    pressOnLast(h, 'pack:alpha');
    await settled(h, 2);

    h.say('/usage footer on');
    await settled(h, 3);
    expect(lastText(ALLOWED_USER)).toBe(
      "Usage footer on: each answer in this chat ends with its tokens and cost, and today's total.",
    );
    // gpt-4.1-mini: $0.40 in, $1.60 out per million tokens.
    h.model.enqueue({ text: 'First.', usage: { input: 1000, output: 500 } });
    h.say('one');
    await settled(h, 4);
    expect(lastText(ALLOWED_USER)).toBe(
      'First.\n\n<i>This answer: 1,500 tokens, $0.0012 · today: 1,500 tokens, $0.0012</i>\n\n— Alpha Garden',
    );

    h.model.enqueue({ text: 'Second.', usage: { input: 2000, output: 0 } });
    h.say('two');
    await settled(h, 5);
    expect(lastText(ALLOWED_USER)).toBe(
      'Second.\n\n<i>This answer: 2,000 tokens, $0.00080 · today: 3,500 tokens, $0.0020</i>\n\n— Alpha Garden',
    );

    h.say('/usage footer off');
    await settled(h, 6);
    h.model.enqueue({ text: 'Third.' });
    h.say('three');
    await settled(h, 7);
    expect(lastText(ALLOWED_USER)).toBe('Third.\n\n— Alpha Garden');
    expect(h.rows('SELECT usage_footer FROM conversation_routes')).toEqual([{ usage_footer: 0 }]);
  });

  it('is per forum topic', async () => {
    await h.start(
      {
        // The topics are bound by their first message: every message there is a prompt.
        GROUP_REPLY: 'all',
        SATCHEL_MODELS: ownerCatalog(),
        SATCHEL_PACKS: fixturePacks(['alpha']),
      },
      listing,
    );
    inTopic(TOPIC, '/usage footer on');
    await settled(h, 1);
    h.model.enqueue(
      { text: 'In the topic.', usage: { input: 10, output: 5 } },
      { text: 'Elsewhere.', usage: { input: 10, output: 5 } },
    );
    inTopic(TOPIC, 'hi');
    await settled(h, 2);
    expect(lastText(GROUP)).toMatch(
      /^In the topic\.\n\n<i>This answer: 15 tokens, \$.+ · today: 15 tokens, .+<\/i>$/,
    );
    inTopic(OTHER_TOPIC, 'hi');
    await settled(h, 3);
    expect(lastText(GROUP)).toBe('Elsewhere.');
    h.say('/usage');
    await settled(h, 4);
    expect(lastText(ALLOWED_USER)).toMatch(/^Today \(/);
    h.say('/usage footer maybe');
    await settled(h, 5);
    expect(lastText(ALLOWED_USER)).toBe("Send /usage for today's usage, or /usage footer on|off.");
  });
});
