import { Bot } from 'grammy';
import type { Logger } from '../core/ports.ts';
import { createTelegramChannel } from './channel.ts';
import { createTelegramFileSource } from './files.ts';

/**
 * Telegram as satchel uses it, built in one place: the bot (for polling), the channel
 * (everything sent), the file source (everything users send) and the command menu.
 */
export function createTelegramAdapter(options: {
  token: string;
  apiRoot: string;
  log: Logger;
  /** TELEGRAM_LOCAL_FILES: files are read from a self-hosted Bot API server's disk. */
  localFiles?: boolean;
}) {
  const bot = new Bot(options.token, { client: { apiRoot: options.apiRoot } });
  return {
    bot,
    channel: createTelegramChannel(bot.api),
    files: createTelegramFileSource({ api: bot.api, ...options }),

    /** Registers the command menu (setMyCommands). */
    async setCommands(menu: { command: string; description: string }[]): Promise<void> {
      await bot.api.setMyCommands(menu);
    },
  };
}
