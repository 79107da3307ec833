import { type Sender, waitForFirstMessage } from '../telegram/first-message.ts';
import { probeToken } from '../telegram/probe.ts';
import { telegramVariables } from '../telegram/settings.ts';
import { SetupFailed, type SetupUi } from './ui.ts';

/** How long getMe may take. */
const PROBE_MS = 15_000;

export interface TelegramAnswers {
  token: string;
  ownerId: number;
}

/**
 * The bot token (checked with getMe) and the owner's numeric id: `--owner-id`, else the
 * owner `.env` names when the token is the one it has (`current`), else learned from the
 * first private message someone sends the bot (asking "is this you?" when there is someone
 * to ask). The current token is the default (under `--yes`, kept unless a flag says
 * otherwise). Undefined when the person skips Telegram, or types "none" to remove it (the
 * web chat runs alone).
 */
export async function connectTelegram(
  given: { token?: string | undefined; ownerId?: number | undefined },
  deps: { ui: SetupUi; apiRoot: string; ownerWaitMs: number },
  current: { token?: string | undefined; ownerId?: number | undefined } = {},
): Promise<TelegramAnswers | undefined> {
  const { ui } = deps;
  let kept = current.token;
  for (;;) {
    const token = given.token ?? (ui.prompter ? await askToken(ui, kept) : kept);
    if (!token) return undefined;
    const problem = tokenProblem(token);
    const probe = problem
      ? { ok: false as const, ...problem }
      : await probeToken({
          token,
          apiRoot: deps.apiRoot,
          signal: AbortSignal.any([ui.signal, AbortSignal.timeout(PROBE_MS)]),
        });
    if (ui.signal.aborted) throw ui.signal.reason;
    if (probe.ok) {
      ui.say(`✓ Telegram: token accepted, the bot is @${probe.username}`);
      const known = token === current.token ? current.ownerId : undefined;
      const ownerId = given.ownerId ?? known ?? (await learnOwner(token, probe, deps));
      return { token, ownerId };
    }
    const failure = new SetupFailed(`Telegram: ${probe.problem}`, probe.fix);
    if (!ui.prompter || given.token !== undefined) throw failure;
    kept = undefined;
    ui.say(`✗ ${failure.message}\n    ${failure.fix}\nTry again (Ctrl-C stops).`);
  }
}

async function askToken(ui: SetupUi, current: string | undefined): Promise<string | undefined> {
  if (!ui.prompter) return undefined;
  ui.say(
    '\nTelegram (optional): create a bot with @BotFather (/newbot) and paste the token it gives.',
  );
  const skip = current
    ? 'Enter keeps the current bot; "none" removes Telegram'
    : 'Enter to skip: the web chat works without it';
  const answer = await ui.prompter.askSecret(`Bot token, not shown as you type (${skip}): `);
  if (answer.toLowerCase() === 'none') return undefined;
  return answer || current;
}

function tokenProblem(token: string): { problem: string; fix: string } | undefined {
  const parsed = telegramVariables.shape.TELEGRAM_BOT_TOKEN.safeParse(token);
  if (parsed.success) return undefined;
  return {
    problem: 'the token does not look like one (expected "<digits>:<letters>")',
    fix: 'Copy the whole token @BotFather gave you (/mybots → your bot → API Token).',
  };
}

async function learnOwner(
  token: string,
  bot: { username: string; webhookUrl: string | undefined },
  deps: { ui: SetupUi; apiRoot: string; ownerWaitMs: number },
): Promise<number> {
  const { ui } = deps;
  if (bot.webhookUrl)
    throw new SetupFailed(
      `Telegram: the bot has a webhook set (${bot.webhookUrl}), so its messages cannot be read here`,
      'Give your numeric Telegram id with --owner-id, or remove the webhook (Bot API deleteWebhook) and run setup again.',
    );
  const minutes = Math.round(deps.ownerWaitMs / 60_000);
  ui.say(
    `\nNow send @${bot.username} any message from your own Telegram account ` +
      `(https://t.me/${bot.username}, then Start), so satchel learns your id; ` +
      `waiting up to ${minutes >= 1 ? `${minutes} min` : `${Math.round(deps.ownerWaitMs / 1000)} s`}…`,
  );
  const found = await waitForFirstMessage({
    token,
    apiRoot: deps.apiRoot,
    waitMs: deps.ownerWaitMs,
    signal: ui.signal,
    accept: (sender) => acceptSender(sender, ui),
  });
  if (ui.signal.aborted) throw ui.signal.reason;
  if (!found.ok) throw new SetupFailed(`Telegram: ${found.problem}`, found.fix);
  return found.sender.id;
}

async function acceptSender(sender: Sender, ui: SetupUi): Promise<boolean> {
  const who = `${sender.name}${sender.username ? ` (@${sender.username})` : ''}, id ${sender.id}`;
  if (!ui.prompter) {
    ui.say(`✓ a message from ${who}: the owner`);
    return true;
  }
  const yes = await ui.prompter.confirm(`A message from ${who}. Is this you, the owner?`, true);
  if (!yes) ui.say('Waiting for another message…');
  return yes;
}
