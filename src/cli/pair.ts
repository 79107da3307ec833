import { existsSync } from 'node:fs';
import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import type { Logger } from '../core/ports.ts';
import { createPairing } from '../inbound/pairing.ts';
import { createLogger } from '../logging/logger.ts';
import { privateLog } from '../logging/private-log.ts';
import type { CoreStore } from '../store/client.ts';
import { openCoreStore } from '../store/client.ts';
import type { PairedUser } from '../store/pairing-repo.ts';
import { createPairingRepo } from '../store/pairing-repo.ts';
import { TELEGRAM_PLATFORM } from '../telegram/ids.ts';
import { approvalText, PAIRED_NOTICE } from '../turn/pair-command.ts';
import { onePositional } from './args.ts';
import type { CliCommand } from './command.ts';
import { pairInfo } from './help.ts';

/** The variables `satchel pair` reads. */
const pairEnv = envSchema.pick({
  SATCHEL_HOME: true,
  TELEGRAM_BOT_TOKEN: true,
  TELEGRAM_API_ROOT: true,
});

/** `satchel pair`; the clock is injectable so tests can pin expiry. */
export function createPairCommand(clock: Clock = systemClock): CliCommand {
  return {
    ...pairInfo,
    async run(args, io) {
      const code = onePositional(args, 'which code? Give the code the person was sent');
      const env = pairEnv.safeParse(withEnvFile(io.env, io.cwd));
      if (!env.success) {
        const issues = env.error.issues.map((i) => `- ${i.message}`).join('\n');
        io.stderr.write(`satchel pair: invalid configuration:\n${issues}\n`);
        return 1;
      }
      const home = path.resolve(io.cwd, env.data.SATCHEL_HOME);
      if (!existsSync(path.join(home, 'satchel.db'))) {
        io.stderr.write(
          `satchel pair: ${home} holds no satchel data (no satchel.db): check SATCHEL_HOME\n`,
        );
        return 1;
      }
      const token = env.data.TELEGRAM_BOT_TOKEN;
      const log = createLogger({
        level: 'info',
        secrets: [token],
        format: 'json',
        destination: privateLog(path.join(home, 'logs'), 'cli.log'),
      });
      const store = openCoreStore(home);
      try {
        const pairing = createPairing({ repo: createPairingRepo(store.db), clock, log });
        const approval = pairing.approve(code, 'cli');
        if (!approval.ok) {
          io.stderr.write(`satchel pair: ${approvalText(approval)}\n`);
          return 1;
        }
        io.stdout.write(`${approvalText(approval)}\n`);
        const told = token
          ? await tell(approval.user, {
              store,
              clock,
              log,
              token,
              apiRoot: env.data.TELEGRAM_API_ROOT,
            })
          : 'TELEGRAM_BOT_TOKEN is not set, so they were not told: let them know yourself.';
        io.stdout.write(`${told}\n`);
        return 0;
      } finally {
        store.close();
      }
    },
  };
}

export const pairCommand = createPairCommand();

interface TellDeps {
  store: CoreStore;
  clock: Clock;
  log: Logger;
  token: string;
  apiRoot: string;
}

/**
 * Tells the user they are in, through an outbox row sent from here: the running bot reads
 * unsent rows only at its start, so waiting for it could take days. A row that cannot go
 * now stays pending for that start.
 */
async function tell(user: PairedUser, deps: TellDeps): Promise<string> {
  if (user.platform !== TELEGRAM_PLATFORM)
    return `They are on ${user.platform}, which this command cannot reach: let them know yourself.`;
  // grammY and the outbox load only here: without a token, or for another platform, no one is told.
  const [{ createTelegramAdapter }, { createOutboxRepo }, { createOutbox }, { plain }] =
    await Promise.all([
      import('../telegram/adapter.ts'),
      import('../store/outbox-repo.ts'),
      import('../outbound/outbox.ts'),
      import('../outbound/compose.ts'),
    ]);
  const { channel } = createTelegramAdapter({
    token: deps.token,
    apiRoot: deps.apiRoot,
    log: deps.log,
  });
  const repo = createOutboxRepo(deps.store.db);
  const outbox = createOutbox({ repo, channel, clock: deps.clock, log: deps.log });
  try {
    const ids = outbox.write(
      { platform: user.platform, chatId: user.chatId },
      plain(PAIRED_NOTICE),
    );
    if (await outbox.dispatch(ids)) return 'They were told in their chat.';
    return ids.some((id) => repo.get(id)?.status === 'failed')
      ? 'Telegram refused the message (see SATCHEL_HOME/logs/cli.log), so they were not told: let them know yourself.'
      : 'Telegram could not be reached, so they were not told yet: satchel tells them at its next start.';
  } finally {
    outbox.close();
  }
}
