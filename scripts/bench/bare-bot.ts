/**
 * The bare bot satchel is measured against: grammY and the runner, one model call through
 * the openai SDK (streamed, as satchel's is), one `sendMessage`. Nothing is stored, no
 * allowlist, no typing, no history: the least a Telegram bot with a model behind it can do.
 */
import { type RunnerHandle, run } from '@grammyjs/runner';
import { Bot } from 'grammy';
import OpenAI from 'openai';

export interface BareBotOptions {
  token: string;
  apiRoot: string;
  /** The OpenAI-compatible base URL (`…/v1`). */
  modelUrl: string;
  model: string;
}

export function createBareBot(options: BareBotOptions) {
  const bot = new Bot(options.token, { client: { apiRoot: options.apiRoot } });
  const openai = new OpenAI({ apiKey: 'bench', baseURL: options.modelUrl, maxRetries: 0 });
  let runner: RunnerHandle | undefined;

  bot.on('message:text', async (ctx) => {
    const stream = await openai.chat.completions.create({
      model: options.model,
      messages: [{ role: 'user', content: ctx.message.text }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    await ctx.reply(text || '(no answer)');
  });

  return {
    async start(): Promise<void> {
      runner = run(bot);
    },
    async stop(): Promise<void> {
      if (runner?.isRunning()) await runner.stop();
    },
  };
}
