import { Api, GrammyError, HttpError } from 'grammy';
import type { Update } from 'grammy/types';
import { failureCause } from './errors.ts';

/** Who sent the bot a private message, as `satchel setup` shows it before taking the id. */
export interface Sender {
  id: number;
  /** First and last name as Telegram shows them. */
  name: string;
  username: string | undefined;
}

export type FirstMessage =
  | { ok: true; sender: Sender }
  | { ok: false; problem: string; fix: string; timedOut: boolean };

export interface FirstMessageOptions {
  token: string;
  apiRoot: string;
  /** How long to wait for the message in all. */
  waitMs: number;
  /** Stops the wait early (Ctrl-C); resolves as a timeout would not: `ok: false`. */
  signal: AbortSignal;
  /** Asked about each private message in turn; false: keep waiting for another one. */
  accept(sender: Sender): Promise<boolean>;
}

/** The longest a single getUpdates long poll is held, as the runner does. */
const POLL_SECONDS = 25;

/**
 * Waits, by long-polling getUpdates, for a person to send the bot a private message, and
 * resolves with its sender (`satchel setup` learns the owner's id this way). Only the
 * updates up to the message taken are acknowledged (the next poll's offset), so the bot
 * does not answer that message at its first start and every later update stays queued for
 * it. Never rejects: a refused token, another poller or webhook (409), no network, or no
 * message within `waitMs` come back as a problem with its fix.
 */
export async function waitForFirstMessage(options: FirstMessageOptions): Promise<FirstMessage> {
  const api = new Api(options.token, { apiRoot: options.apiRoot });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.waitMs);
  const signal = AbortSignal.any([deadline.signal, options.signal]);
  let offset: number | undefined;
  try {
    for (;;) {
      const updates = await api.getUpdates(
        { ...(offset === undefined ? {} : { offset }), timeout: POLL_SECONDS, limit: 100 },
        signal as Parameters<Api['getUpdates']>[1],
      );
      for (const update of updates) {
        offset = update.update_id + 1;
        const sender = privateSender(update);
        if (sender && (await options.accept(sender))) {
          // Confirms this update and those before it; answers nothing, waits for nothing.
          await api.getUpdates({ offset, limit: 1, timeout: 0 }, signal as never);
          return { ok: true, sender };
        }
      }
    }
  } catch (error) {
    if (deadline.signal.aborted && !options.signal.aborted)
      return {
        ok: false,
        timedOut: true,
        problem: `no private message reached the bot within ${Math.round(options.waitMs / 1000)} s`,
        fix: 'Run setup again and send the bot a message from your own account (open it in Telegram and press Start), or give your numeric id with --owner-id.',
      };
    return failed(error, options);
  } finally {
    clearTimeout(timer);
  }
}

/** The person behind a private text or media message; undefined for anything else. */
function privateSender(update: Update): Sender | undefined {
  const message = update.message;
  const from = message?.from;
  if (message?.chat.type !== 'private' || !from || from.is_bot) return undefined;
  const name = [from.first_name, from.last_name].filter(Boolean).join(' ');
  return { id: from.id, name, username: from.username };
}

function failed(error: unknown, options: FirstMessageOptions): FirstMessage {
  if (options.signal.aborted)
    return { ok: false, timedOut: false, problem: 'stopped while waiting', fix: '' };
  if (error instanceof GrammyError && error.error_code === 409)
    return {
      ok: false,
      timedOut: false,
      problem: `Telegram will not hand out the bot's messages (409: ${error.description})`,
      fix: "Another program reads this bot's updates (a running satchel, or a webhook is set): stop it or call deleteWebhook, or give your numeric id with --owner-id.",
    };
  if (error instanceof GrammyError)
    return {
      ok: false,
      timedOut: false,
      problem: `Telegram answered getUpdates with ${error.error_code}: ${error.description}`,
      fix: 'Check the token, or give your numeric id with --owner-id.',
    };
  const reason = error instanceof HttpError ? failureCause(error) : String(error);
  return {
    ok: false,
    timedOut: false,
    problem: `cannot reach ${options.apiRoot} (${reason})`,
    fix: 'Check the network connection, or give your numeric id with --owner-id.',
  };
}
