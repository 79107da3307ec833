import type { Agent } from '../agent/agent.ts';
import { memoryNotesOf } from '../agent/memory-flush.ts';
import { ChannelError } from '../core/errors.ts';
import { homeKey } from '../core/home.ts';
import type { Address, InboundEvent } from '../core/types.ts';
import { type OutboundText, plain } from '../outbound/compose.ts';
import type { Pack, Skill } from '../packs/loader.ts';
import type { RESERVED_COMMANDS } from '../packs/skill-command.ts';
import { OWNER } from '../people/people.ts';
import { pickerMessage } from '../routing/picker.ts';
import type { GrantRepo } from '../store/grant-repo.ts';
import { type SessionRow, taintOf } from '../store/session-repo.ts';
import { formatLocal } from '../time/local-time.ts';
import type { TrustGate } from '../tools/trust/gate.ts';
import { usageReport } from '../usage/report.ts';
import { approvalsCommand } from './approvals-command.ts';
import { homeCommand } from './home-command.ts';
import { createModelCommand } from './model-command.ts';
import { type PairCommandDeps, pairCommand } from './pair-command.ts';
import { peopleCommand } from './people-command.ts';
import { queueCommand } from './queue-command.ts';
import type { Conversing, Delivery, Reports, Runtime } from './services.ts';
import { startText } from './start-command.ts';
import type { QueueMode } from './steering.ts';
import { voiceCommand } from './voice-command.ts';
import type { VoiceReplies } from './voice-reply.ts';

export type CommandEvent = Extract<InboundEvent, { kind: 'command' }>;

/**
 * What a command does: answer, start a model turn (a skill command), or run a pack action at
 * once (a skill command with `action:`, SPEC §3).
 */
export type CommandOutcome =
  | { reply: OutboundText }
  | { turn: { pack: string; text: string; pinned: Skill } }
  | { action: { pack: string; action: string } };

export interface CommandDeps {
  runtime: Pick<Runtime, 'clock' | 'log' | 'timezone'>;
  conversing: Pick<Conversing, 'router' | 'packs' | 'people'>;
  reports: Reports;
  /** /compact summarizes through the agent. */
  agent: Agent;
  /** How to create a forum topic in `to`'s chat; undefined where its channel has no topics. */
  topics: Delivery['topics'];
  /** Some edge lets strangers ask in: /pair is offered only then (SPEC §16). */
  strangers(): boolean;
  /** The owner's standing approvals (/approvals). */
  grants: Pick<GrantRepo, 'list' | 'reset'>;
  /** Turns waiting behind the running one in a conversation (for /status). */
  waiting(address: Address): number;
  /** QUEUE_MODE, which /queue reports where the chat chose none. */
  queueMode: QueueMode;
  /** Pairing (/pair, SPEC §18). */
  pair: Omit<PairCommandDeps, 'timezone'>;
  /** Voice replies in each chat (/voice). */
  voice: Pick<VoiceReplies, 'mode' | 'problem'>;
  /**
   * The trust gate of a session outside a turn (/compact's memory flush of a tainted
   * history asks the owner, SPEC §17).
   */
  gateFor(address: Address, pack: Pack, session: SessionRow): Pick<TrustGate, 'mayKeep'>;
}

/** satchel's own commands; the type keeps them equal to the names skills may not take. */
export const CORE_COMMANDS: Record<(typeof RESERVED_COMMANDS)[number], string> = {
  start: 'Say hello and choose a pack',
  help: 'Commands and what the active pack can do',
  new: 'Start a fresh session',
  pack: 'Choose the pack for this chat',
  stop: 'Stop the answer in progress',
  usage: 'Tokens and spend today and in this session',
  status: 'Pack, model, session size and queue',
  compact: 'Summarize this session and continue fresh',
  topics: 'Forum groups: one topic per pack',
  jobs: "This chat's scheduled jobs; /jobs on ID or /jobs off ID",
  model: 'Choose the chat model for this chat',
  approvals: 'Calls you always allow; /approvals reset removes them',
  queue: 'Messages sent while I work: steer (join it) or followup (wait)',
  pair: 'Let someone in with their pairing code; /pair lists, /pair remove ID',
  voice: 'Answers as voice notes too: /voice on, inbound or off',
  people: 'Who uses me, what each costs; /people cap, remove, purge',
  home: 'Whose data this chat uses; /home mine (a group, the owner)',
};

export const TOPIC_RIGHTS_HELP =
  'I cannot create topics here. Make me an administrator of this group with the ' +
  '"Manage topics" right, then send /topics again. To see messages in topics I must be ' +
  'an administrator or have privacy mode turned off (BotFather → /setprivacy).';

/** Runs a command; the caller sends the reply or runs the turn. */
export function createCommands(deps: CommandDeps) {
  const { packs, router } = deps.conversing;
  const { clock, log, timezone } = deps.runtime;
  const { reports } = deps;
  const activeOf = (event: CommandEvent): string | undefined =>
    router.activePack(event.address, event.topicName);
  /** The active pack's manifest `model`, which answers unless the chat picked one. */
  const packModelOf = (active: string | undefined): string | undefined =>
    active ? packs.get(active)?.manifest.model : undefined;
  const models = createModelCommand({ router, models: reports.models });

  /** A skill with `command: true`: the active pack's first, then the only pack that has it. */
  function skillCommand(event: CommandEvent): { pack: string; skill: Skill } | undefined {
    const active = activeOf(event);
    const owners = packs
      .list()
      .flatMap((p) =>
        p.skills
          .filter((s) => s.command && s.commandName === event.command)
          .map((s) => ({ pack: p.name, skill: s })),
      );
    return owners.find((o) => o.pack === active) ?? (owners.length === 1 ? owners[0] : undefined);
  }

  const handlers: Record<
    string,
    (event: CommandEvent, signal: AbortSignal) => Promise<OutboundText> | OutboundText
  > = {
    start: (event) => startText(packs, activeOf(event)),
    help: (event) => plain(helpText(activeOf(event), event.address)),
    new: (event) => {
      const pack = activeOf(event);
      if (!pack) return pickerMessage(packs.list(), 'Choose a pack first:');
      router.fresh(event.address, pack);
      return plain('Started a fresh session.');
    },
    pack: () =>
      packs.list().length === 0
        ? plain('No packs are installed.')
        : pickerMessage(packs.list(), 'Which pack should answer here?'),
    status: (event) => plain(statusText(event)),
    topics: (event) => createTopics(event),
    usage: (event) => (event.args.trim() ? footerSwitch(event) : plain(usageText(event))),
    model: (event) => models.command(event.address, event.args, packModelOf(activeOf(event))),
    approvals: (event) =>
      approvalsCommand(
        {
          grants: deps.grants,
          home: homeKey(deps.conversing.people.homeOf(event.address)),
          packs,
          timezone,
          now: clock.now(),
        },
        event.args,
      ),
    queue: (event) => queueCommand({ router, fallback: deps.queueMode }, event.address, event.args),
    pair: (event) => pairCommand({ ...deps.pair, timezone }, event),
    voice: (event) => voiceCommand({ router, voice: deps.voice }, event.address, event.args),
    jobs: (event) => plain(jobsText(event)),
    people: (event) =>
      peopleCommand(
        {
          people: deps.conversing.people,
          costs: () => reports.people.costs(clock.now()),
          defaultCapUsd: reports.people.defaultCapUsd,
          unpair: (userId) => deps.pair.pairing.remove(userId),
          removeHome: (person) => packs.removeHome({ kind: 'person', person }),
          timezone,
          now: clock.now(),
        },
        event,
      ),
    home: (event) => homeCommand({ people: deps.conversing.people }, event),
    compact: (event, signal) => compact(event, signal),
    // Handled before the queue (it must not wait behind the turn it stops); here it only
    // answers when nothing was running.
    stop: () => plain('Nothing is running right now.'),
  };

  /** `/jobs` lists this chat's jobs; `/jobs on ID` and `/jobs off ID` turn one on or off. */
  function jobsText(event: CommandEvent): string {
    const [word, id, ...rest] = event.args.trim().split(/\s+/);
    if (!word) {
      const listed = reports.schedule?.describe(event.address, router.boundPack(event.address));
      return listed ?? 'No scheduled jobs here.';
    }
    if ((word !== 'on' && word !== 'off') || !id || rest.length > 0)
      return "Send /jobs to list this chat's jobs, /jobs on ID or /jobs off ID to turn one on or off.";
    return reports.schedule?.turn(event.address, id, word === 'on') ?? 'No scheduled jobs here.';
  }

  function usageText(event: CommandEvent): string {
    const active = activeOf(event);
    const pack = active ? packs.get(active) : undefined;
    return usageReport({
      totals: reports.totals,
      calendar: reports.calendar,
      caps: reports.caps,
      now: clock.now(),
      sessionId: router.currentSession(event.address),
      pack: pack && {
        name: pack.name,
        displayName: pack.displayName,
        caps: {
          dailyTokens: pack.manifest.quota?.daily_tokens,
          dailyUsd: pack.manifest.quota?.daily_usd,
        },
      },
    });
  }

  /** `/usage footer on|off`: the usage line under each answer in this chat or topic. */
  function footerSwitch(event: CommandEvent): OutboundText {
    const [word, setting] = event.args.trim().toLowerCase().split(/\s+/);
    if (word !== 'footer' || (setting !== 'on' && setting !== 'off'))
      return plain("Send /usage for today's usage, or /usage footer on|off.");
    router.setUsageFooter(event.address, setting === 'on');
    return plain(
      setting === 'on'
        ? "Usage footer on: each answer in this chat ends with its tokens and cost, and today's total."
        : 'Usage footer off.',
    );
  }

  /** Summarizes the session with the model and continues in a fresh one seeded with it. */
  async function compact(event: CommandEvent, signal: AbortSignal): Promise<OutboundText> {
    const active = activeOf(event);
    if (!active) return pickerMessage(packs.list(), 'Choose a pack first:');
    const route = router.resolve(event.address, active);
    const size = router.sessionSize(route.session.id);
    if (size === 0 && !route.session.summary)
      return plain('This session is empty; nothing to compact.');
    const pack = packs.get(active);
    const gate = pack && deps.gateFor(event.address, pack, route.session);
    // The flush writes to the notes of the home this chat uses (SPEC §19), booked to its sender.
    const { person, home } = deps.conversing.people.belonging(event);
    const summary = await deps.agent.compact({
      session: route.session,
      turnId: `compact-${clock.now()}`,
      pack: active,
      packCaps: {
        dailyTokens: pack?.manifest.quota?.daily_tokens,
        dailyUsd: pack?.manifest.quota?.daily_usd,
      },
      chatId: event.address.chatId,
      threadId: event.address.threadId,
      system: '',
      inputs: [],
      signal,
      ignoreSessionCap: true,
      person,
      capPerson: person === OWNER ? null : person,
      channel: event.address.platform,
      memory: pack ? memoryNotesOf(packs.storage(pack.name, home)) : undefined,
      ...(gate && { mayKeep: gate.mayKeep }),
    });
    // The summary of a tainted session is untrusted, and so is the session it starts.
    router.fresh(event.address, active, { summary, taint: taintOf(route.session) });
    return plain(
      `Compacted ${size} messages into a summary. The conversation continues in a fresh session.`,
    );
  }

  function helpText(active: string | undefined, address: Address): string {
    // Only what works here: /topics needs a channel with topics (not the terminal), /pair
    // an edge strangers can reach (not the web chat or the terminal alone).
    const shown = Object.entries(CORE_COMMANDS).filter(
      ([c]) => (c !== 'topics' || deps.topics(address)) && (c !== 'pair' || deps.strangers()),
    );
    const lines = ['Commands:', ...shown.map(([c, d]) => `/${c} — ${d}`)];
    const pack = active ? packs.get(active) : undefined;
    if (pack) {
      lines.push('', `${pack.displayName} can:`);
      for (const s of pack.skills)
        lines.push(`${s.command ? `/${s.commandName}` : `• ${s.name}`} — ${s.description}`);
    }
    return lines.join('\n');
  }

  function statusText(event: CommandEvent): string {
    const active = activeOf(event);
    const pack = active ? packs.get(active) : undefined;
    const sessionId = router.currentSession(event.address);
    const size = sessionId ? router.sessionSize(sessionId) : 0;
    return [
      `Pack: ${pack?.displayName ?? 'none chosen'}`,
      `Model: ${models.describe(event.address, pack?.manifest.model)}`,
      `Session: ${size} messages`,
      `Trust: ${trustLine(sessionId)}`,
      `Waiting turns: ${deps.waiting(event.address)}`,
      `Next job: ${nextJob(event.address)}`,
    ].join('\n');
  }

  /** Whether the session read outside content, since when and from where (SPEC §17). */
  function trustLine(sessionId: string | undefined): string {
    const session = sessionId ? router.session(sessionId) : undefined;
    const taint = session && taintOf(session);
    if (!taint) return 'clean (this session has read no outside content)';
    const since = formatLocal(taint.since, timezone, clock.now());
    const shown = taint.sources.slice(0, 3).join(', ');
    const more = taint.sources.length > 3 ? ` and ${taint.sources.length - 3} more` : '';
    return `tainted since ${since} by ${shown}${more}: calls that change things ask you first. /new starts a clean session.`;
  }

  function nextJob(address: Address): string {
    const at = reports.schedule?.next(address);
    return at === undefined ? 'none' : formatLocal(at, timezone, clock.now());
  }

  async function createTopics(event: CommandEvent): Promise<OutboundText> {
    const createTopic = deps.topics(event.address);
    if (!createTopic || event.chatType !== 'supergroup' || !event.isForum)
      return plain('/topics works in a forum group (a supergroup with topics turned on).');
    const bound = router.packsWithTopics(event.address.chatId);
    const missing = packs.list().filter((p) => !bound.has(p.name));
    if (missing.length === 0) return plain('Every pack already has its topic here.');
    const created: string[] = [];
    for (const pack of missing) {
      try {
        const { threadId } = await createTopic(pack.displayName);
        router.resolve({ ...event.address, threadId }, pack.name, 'pick');
        // Topics the owner makes use the owner's home (SPEC §19).
        if (deps.conversing.people.isOwner(event.address.platform, event.senderId))
          deps.conversing.people.useOwnerHome(event.address, threadId);
        created.push(pack.displayName);
      } catch (error) {
        log.warn(
          { event: 'topics_failed', chatId: event.address.chatId, err: error },
          'creating a topic failed',
        );
        const refused = error instanceof ChannelError && error.kind === 'refused';
        const prefix = created.length ? `Created topics: ${created.join(', ')}.\n\n` : '';
        return plain(
          prefix +
            (refused
              ? TOPIC_RIGHTS_HELP
              : `The topic "${pack.displayName}" could not be created. Try again later.`),
        );
      }
    }
    return plain(`Created topics: ${created.join(', ')}. Each answers as its own pack.`);
  }

  return {
    /** Commands for setMyCommands: the core ones and every skill command (deduplicated). */
    menu(): { command: string; description: string }[] {
      const menu = Object.entries(CORE_COMMANDS).map(([command, description]) => ({
        command,
        description,
      }));
      for (const pack of packs.list())
        for (const skill of pack.skills)
          if (skill.command && !menu.some((m) => m.command === skill.commandName))
            menu.push({
              command: skill.commandName,
              description: skill.description.slice(0, 256),
            });
      return menu.slice(0, 100);
    },

    /** A `/model` button pressed in `address`: picks it, and says what answers now. */
    modelPressed(address: Address, ref: string): OutboundText {
      return models.pressed(address, ref, packModelOf(router.activePack(address)));
    },

    async run(event: CommandEvent, signal: AbortSignal): Promise<CommandOutcome> {
      const handler = handlers[event.command];
      if (handler) return { reply: await handler(event, signal) };
      const skill = skillCommand(event);
      if (skill?.skill.action !== undefined)
        return { action: { pack: skill.pack, action: skill.skill.action } };
      if (skill)
        return {
          turn: { pack: skill.pack, text: event.args || `/${event.command}`, pinned: skill.skill },
        };
      return { reply: plain(`I don't know /${event.command}. Send /help to see what I can do.`) };
    },
  };
}

export type Commands = ReturnType<typeof createCommands>;
