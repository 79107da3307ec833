/**
 * The web chat's model picker (SPEC §16, §14) over HTTP: the models the configured provider
 * lists at its model-list endpoint, chat models only, priced first with their prices and the
 * unpriced marked; a pick does what the /model button does: saved for the conversation,
 * confirmed in it, and the next answer comes from that model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChatClient, shownText } from '../support/chat-client.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness | undefined;
let c: ChatClient | undefined;

afterEach(async () => {
  c?.close();
  await h?.close();
  h = undefined;
});

async function start(): Promise<ChatClient> {
  const printed: string[] = [];
  h = await startHarness(
    {},
    {
      app: { announce: (line) => printed.push(line) },
      beforeStart: (_tg, model) =>
        model.setModels('openai', ['gpt-4o-mini-tts', 'my-local-model', 'gpt-4.1', 'gpt-4.1-mini']),
    },
  );
  const line = printed.findLast((l) => l.startsWith('satchel web chat: '))!;
  c = await ChatClient.open(line.slice('satchel web chat: '.length));
  await c.connect();
  return c;
}

type Listed = {
  models: { ref: string; price?: { input: number; output: number } }[];
  current: string;
  picked: boolean;
};

describe('the web chat’s model picker', () => {
  it('lists the provider’s chat models with their prices, and a pick answers the conversation', async () => {
    const chat = await start();
    const { id } = (await chat.conversations())[0]!;
    const listed = await chat.get<Listed>(`/chat/models?c=${id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      models: [
        { ref: 'openai:gpt-4.1', price: { input: 2, output: 8 } },
        { ref: 'openai:gpt-4.1-mini', price: { input: 0.4, output: 1.6 } },
        { ref: 'openai:my-local-model' },
      ],
      current: 'openai:gpt-4.1-mini',
      picked: false,
    });
    // Asked of the provider's own list, with the key.
    const [asked] = h!.model.requests({ kind: 'models' });
    expect(asked!.path).toBe('/v1/models');
    expect(asked!.headers.authorization).toMatch(/^Bearer sk-test/);

    const pick = (ref: unknown) => chat.post('model', { conversation: id, ref });
    expect((await pick('openai:gpt-4o-mini-tts')).status).toBe(409);
    expect((await pick(7)).status).toBe(400);
    expect((await pick('openai:my-local-model')).status).toBe(202);
    const [confirmation] = await chat.waitForBot(1);
    expect(shownText(confirmation!)).toBe(
      'This chat now uses openai:my-local-model. Send /model default to go back.',
    );
    expect((await chat.get<Listed>(`/chat/models?c=${id}`)).body).toMatchObject({
      current: 'openai:my-local-model',
      picked: true,
    });
    await chat.send('hello');
    await chat.waitForBot(2);
    expect(h!.model.chatRequests().at(-1)!.model).toBe('my-local-model');
    // /model in the chat lists the same models.
    await chat.send('/model');
    const [menu] = (await chat.waitForBot(3)).slice(-1);
    expect(menu!.buttons!.flat().map((b) => b.text)).toEqual([
      'openai:gpt-4.1',
      'openai:gpt-4.1-mini',
      '✓ openai:my-local-model (no price)',
      'Default (openai:gpt-4.1-mini)',
    ]);

    expect((await pick('default')).status).toBe(202);
    await chat.waitForBot(4);
    expect((await chat.get<Listed>(`/chat/models?c=${id}`)).body).toMatchObject({
      current: 'openai:gpt-4.1-mini',
      picked: false,
    });
    expect((await chat.get(`/chat/models?c=w-nope`)).status).toBe(404);
  });
});
