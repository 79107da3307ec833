import { background } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import type { EdgeFactory, EdgeModule, Ingress, IngressPort } from '../core/edge.ts';
import type { NumberedInbox } from '../core/inbox.ts';
import type { Logger } from '../core/ports.ts';
import { createTelegramAdapter } from './adapter.ts';
import { telegramChecks } from './doctor.ts';
import { createTelegramGate } from './gate.ts';
import { telegramHealth } from './health.ts';
import { idOut, TELEGRAM_PLATFORM } from './ids.ts';
import { createIngress } from './ingress.ts';
import { TELEGRAM_VARIABLES, type TelegramConfig, telegramSettings } from './settings.ts';
import { createWebhookIngress } from './webhook.ts';

export type { TelegramConfig } from './settings.ts';

/** Telegram in the edge list (src/edges.ts): its variables, and the edge made from them. */
export const telegram: EdgeModule = {
  platform: TELEGRAM_PLATFORM,
  variables: TELEGRAM_VARIABLES,
  create: (config) =>
    telegramEdge({ telegram: telegramSettings(config.env), groupReply: config.groupReply }),
};

/** How texts name it. */
const NAME = 'Telegram';

/**
 * Telegram as an edge of the core: its channel and file source, its allowlist gate, its
 * acknowledgement — an update's inbox row marked done, in the reply's transaction — and its
 * ingress (long polling or the webhook), its health and its doctor checks. Origins are `tg`
 * with keys `update:<update_id>`. Without TELEGRAM_BOT_TOKEN it is off: no Bot API call, and
 * it says so at start and in `satchel doctor`.
 */
export function telegramEdge(config: TelegramConfig): EdgeFactory {
  const doctor = telegramChecks(config);
  const { token, apiRoot, allowedUserIds, owner } = config.telegram;
  const named = { platform: TELEGRAM_PLATFORM, name: NAME, doctor };
  if (token === undefined)
    return { ...named, connect: ({ log }) => ({ platform: TELEGRAM_PLATFORM, ingress: off(log) }) };
  return {
    ...named,
    secrets: [token, config.telegram.webhook?.secret],
    // A channel of its own, for `satchel pair` to tell a person they are in.
    reach: (log) => createTelegramAdapter({ token, apiRoot, log }).channel,
    connect: ({ log, clock, inboxes, pairing }) => {
      const { localFiles } = config.telegram;
      const adapter = createTelegramAdapter({ token, apiRoot, log, localFiles });
      const inbox = inboxes.numbered();
      return {
        platform: TELEGRAM_PLATFORM,
        channel: adapter.channel,
        files: adapter.files,
        gate: createTelegramGate({
          allowedUserIds,
          clock,
          log,
          pairing,
          offerCodes: config.telegram.pairing,
          owner,
        }),
        // The first allowed id owns the bot; with no allowlist there is no owner (and nobody
        // may press an approval: see the trust's owner in core-app/pipeline.ts).
        owner,
        // Telegram's private chats have positive ids (the user's own), groups negative ones.
        chatType: (address) => (idOut(address.chatId) > 0 ? 'private' : 'supergroup'),
        acknowledge: (keys, now) => inbox.markDone(keys.map(updateIdOf), now),
        ingress: (port) => telegramIngress(config, { adapter, inbox, clock, log }, port),
      };
    },
  };
}

/** The update id of an origin key `update:<id>`. */
const updateIdOf = (key: string): number => Number(key.slice('update:'.length));

/**
 * Without a token: nothing comes in, the start says how to turn the bot on, and `/healthz`
 * says it is off (`mode: none`), which is no failure.
 */
const off = (log: Logger) => (): Ingress => ({
  health: () => ({
    ok: true,
    fields: { mode: 'none', polling: false, last_poll_age_ms: null, last_update_age_ms: null },
  }),
  ready: () =>
    log.info(
      { event: 'telegram_off' },
      'TELEGRAM_BOT_TOKEN is not set: running the web chat and the dashboard alone ' +
        '(no Bot API call). Create a bot with @BotFather and set it to talk on Telegram too.',
    ),
});

interface Connected {
  adapter: ReturnType<typeof createTelegramAdapter>;
  /** The durable inbox (`inbound_updates`): updates are stored there before they are handled. */
  inbox: NumberedInbox;
  clock: Clock;
  log: Logger;
}

/** Telegram's way in (long polling or the webhook), and its command menu once connected. */
function telegramIngress(config: TelegramConfig, parts: Connected, port: IngressPort): Ingress {
  const { adapter, inbox, clock, log } = parts;
  async function registerCommands(): Promise<void> {
    try {
      await adapter.setCommands(port.menu());
    } catch (error) {
      log.warn({ event: 'tg_set_commands_failed', err: error }, 'could not register commands');
    }
  }
  const deps = {
    bot: adapter.bot,
    inbox,
    clock,
    log,
    // The command menu goes up once Telegram answers, however long that takes.
    onConnected: () => background(log, 'tg_set_commands_failed', registerCommands()),
    // Telegram answers again after an outage: replies held back go out now, not at the end
    // of their backoff wait (SPEC §4: within 3 s).
    onReachable: () => port.reachable(),
    onEvent: port.accept,
    onStopped: port.fatal,
    localFiles: config.telegram.localFiles,
    owner: config.telegram.owner === undefined ? undefined : idOut(config.telegram.owner),
  };
  const { webhook } = config.telegram;
  const ingress = webhook ? createWebhookIngress({ ...deps, webhook }) : createIngress(deps);
  return {
    ready() {
      if (config.telegram.allowedUserIds.length === 0)
        log.warn(
          { event: 'allowlist_empty' },
          'ALLOWED_USER_IDS is empty, so every sender will be denied. Add your numeric ' +
            'Telegram user id (comma-separated for several) and restart; a denied ' +
            "sender's id is in the tg_auth_denied log line (with DM_PAIRING=on they get a " +
            'pairing code too: npx satchel pair CODE lets one in).',
        );
    },
    start: () => ingress.start(),
    stop: () => ingress.stop(),
    health: telegramHealth(ingress, clock),
  };
}
