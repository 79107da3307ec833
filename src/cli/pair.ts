import { existsSync } from 'node:fs';
import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import type { EdgeFactory, EdgeModule } from '../core/edge.ts';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { createPairing } from '../inbound/pairing.ts';
import { createLogger } from '../logging/logger.ts';
import { privateLog } from '../logging/private-log.ts';
import type { CoreStore } from '../store/client.ts';
import { openCoreStore } from '../store/client.ts';
import type { PairedUser } from '../store/pairing-repo.ts';
import { createPairingRepo } from '../store/pairing-repo.ts';
import { approvalText, PAIRED_NOTICE } from '../turn/pair-command.ts';
import { onePositional } from './args.ts';
import type { CliCommand } from './command.ts';
import { pairInfo } from './help.ts';

/** The variables `satchel pair` reads of the core's; each edge reads its own. */
const pairEnv = envSchema.pick({ SATCHEL_HOME: true });

type Env = Record<string, string | undefined>;

/** `satchel pair`; the clock is injectable so tests can pin expiry. */
export function createPairCommand(
  clock: Clock = systemClock,
  edges?: readonly EdgeModule[],
): CliCommand {
  return {
    ...pairInfo,
    async run(args, io) {
      const code = onePositional(args, 'which code? Give the code the person was sent');
      const env = withEnvFile(io.env, io.cwd);
      const parsed = pairEnv.safeParse(env);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `- ${i.message}`).join('\n');
        io.stderr.write(`satchel pair: invalid configuration:\n${issues}\n`);
        return 1;
      }
      const home = path.resolve(io.cwd, parsed.data.SATCHEL_HOME);
      if (!existsSync(path.join(home, 'satchel.db'))) {
        io.stderr.write(
          `satchel pair: ${home} holds no satchel data (no satchel.db): check SATCHEL_HOME\n`,
        );
        return 1;
      }
      const log = createLogger({
        level: 'info',
        // Every string shaped like a token is scrubbed; the edges' own secrets are added once made.
        secrets: [],
        format: 'json',
        destination: privateLog(path.join(home, 'logs'), 'cli.log'),
      });
      const store = openCoreStore(home);
      try {
        const pairing = createPairing({ repo: createPairingRepo(store.db), clock, log });
        const approval = pairing.approve(code, 'cli');
        if (!approval.ok) {
          const text =
            approval.reason === 'unknown'
              ? await unknownCode(approval.code, { home, env, edges })
              : approvalText(approval);
          io.stderr.write(`satchel pair: ${text}\n`);
          return 1;
        }
        io.stdout.write(`${approvalText(approval)}\n`);
        const told = await tell(approval.user, { store, clock, log, home, env, edges });
        io.stdout.write(`${told.text}\n`);
        if (told.problem) io.stderr.write(`satchel pair: ${told.problem}\n`);
        return told.problem ? 1 : 0;
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
  home: string;
  env: Env;
  /** The edge list (default src/edges.ts's). */
  edges: readonly EdgeModule[] | undefined;
}

/** The edge a paired person is on, from the edge list (src/edges.ts), made from `env`. */
async function edgeOf(platform: string, deps: TellDeps): Promise<EdgeFactory | undefined> {
  return (await edgesFrom(deps)).find((edge) => edge.platform === platform);
}

/** The edges made from `env` (src/edges.ts's list, or the one given). */
async function edgesFrom(deps: Pick<TellDeps, 'home' | 'env' | 'edges'>): Promise<EdgeFactory[]> {
  // The edges (grammY among them) load only here, once someone is paired or a code is unknown.
  const { edgesOf } = await import('../edges.ts');
  const env = Object.fromEntries(
    Object.entries(deps.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  // Pairing reads no group setting: GROUP_REPLY is the bot's, not the edges' reach.
  return edgesOf({ home: deps.home, groupReply: 'mention', env }, deps.edges);
}

/**
 * What an unknown code is told from here: where the pending codes are listed — `/pair` in
 * the owner's chat on an edge that gives codes (one that reaches its people) — or, with no
 * such edge set up (the web chat alone), that there is nobody a code could have come from.
 */
async function unknownCode(
  code: string,
  deps: Pick<TellDeps, 'home' | 'env' | 'edges'>,
): Promise<string> {
  const givers = await edgesFrom(deps).then(
    (edges) => edges.filter((edge) => edge.reach !== undefined).map((edge) => edge.name),
    (error: unknown) => {
      if (error instanceof ConfigError) return [];
      throw error;
    },
  );
  if (givers.length === 0)
    return (
      `No pending code ${code}. Codes are given to people who write to your bot, and no bot is ` +
      'set up here (the web chat is yours alone): there is no code to approve. ' +
      'Run npx satchel setup to add a Telegram bot.'
    );
  return `No pending code ${code}. Check it, or send /pair in your private chat on ${givers.join(' or ')} to list the pending codes.`;
}

/**
 * Tells the person they are in, through their edge and an outbox row sent from here: the
 * running bot reads unsent rows only at its start, so waiting for it could take days. A row
 * that cannot go now stays pending for that start. An edge that cannot reach its people from
 * here (the web chat, a bot without its token) leaves it to the owner.
 */
async function tell(user: PairedUser, deps: TellDeps): Promise<{ text: string; problem?: string }> {
  let edge: EdgeFactory | undefined;
  try {
    edge = await edgeOf(user.platform, deps);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { text: 'They were not told: let them know yourself.', problem: error.message };
  }
  const channel = edge?.reach?.(deps.log);
  if (!edge || !channel)
    return {
      text: `${edge ? `${capital(edge.name)} cannot reach them from here` : `They are on ${user.platform}, which this command cannot reach`}, so they were not told: let them know yourself.`,
    };
  const [{ createOutboxRepo }, { createOutbox }, { plain }] = await Promise.all([
    import('../store/outbox-repo.ts'),
    import('../outbound/outbox.ts'),
    import('../outbound/compose.ts'),
  ]);
  const repo = createOutboxRepo(deps.store.db);
  const outbox = createOutbox({ repo, channel, clock: deps.clock, log: deps.log });
  try {
    const ids = outbox.write(
      { platform: user.platform, chatId: user.chatId },
      plain(PAIRED_NOTICE),
    );
    if (await outbox.dispatch(ids)) return { text: 'They were told in their chat.' };
    const name = capital(edge.name);
    return {
      text: ids.some((id) => repo.get(id)?.status === 'failed')
        ? `${name} refused the message (see SATCHEL_HOME/logs/cli.log), so they were not told: let them know yourself.`
        : `${name} could not be reached, so they were not told yet: satchel tells them at its next start.`,
    };
  } finally {
    outbox.close();
  }
}

const capital = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
