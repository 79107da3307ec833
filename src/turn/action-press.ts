import type { Clock } from '../core/clock.ts';
import { type Home, homeKey, homeOfKey } from '../core/home.ts';
import type { Logger, TextPart } from '../core/ports.ts';
import { type Address, addressKey, type InboundEvent } from '../core/types.ts';
import { markdown, plain } from '../outbound/compose.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { ActionKeyboards, StoredKeyboard } from '../packs/action-keyboards.ts';
import { ActionError, type ActionOutcome, runAction } from '../packs/action-run.ts';
import type { ActionSpec, Params } from '../packs/actions.ts';
import { dateParams } from '../packs/date-params.ts';
import type { Pack } from '../packs/loader.ts';
import type { PackRegistry } from '../packs/registry.ts';
import { sourceKey } from './inputs.ts';
import type { Replies } from './replies.ts';
import type { ChatTurn } from './turn-parts.ts';

/** What the presser hears when the keyboard is gone (replaced by a press, or too old). */
export const EXPIRED_BUTTONS = 'These buttons have expired.';
/** What anyone else pressing hears: the buttons act on someone else's home (SPEC §19). */
export const onlyFor = (name: string) => `Only ${name} can press these buttons.`;
/** What the presser is told when the pack no longer has the button's action. */
export const ACTION_GONE = 'This button no longer works: its pack no longer has that action.';

export interface ActionPressDeps {
  log: Logger;
  clock: Clock;
  /** SATCHEL_TIMEZONE: an action's `:today` and the other dates are the person's. */
  timezone: string;
  transaction: <T>(fn: () => T) => T;
  packs: Pick<PackRegistry, 'get' | 'storage'>;
  keyboards: ActionKeyboards;
  outbox: Pick<Outbox, 'renderFor' | 'writeParts' | 'writeEdit' | 'dispatch'>;
  replies: Pick<Replies, 'reply' | 'settle' | 'acknowledge'>;
  /**
   * Who may press buttons that act on `home` in `to` (SPEC §17, §19): the person whose home it
   * is, as `to`'s edge names them (`id` undefined: anyone there is the owner), and their name.
   */
  presser(home: Home, to: Address): { id: string | undefined; name: string };
  /** Whose home a person's message uses (a command that runs an action acts on it). */
  homeOf(event: Command): Home;
  /** A command's pack enters the conversation, as a skill command's turn would bind it. */
  enter(address: Address, pack: string): void;
  /** A model turn, for an action that hands over (`then: ask`). */
  chatTurn(turn: ChatTurn): Promise<unknown>;
}

type Callback = Extract<InboundEvent, { kind: 'callback' }>;
type Command = Extract<InboundEvent, { kind: 'command' }>;
/** A press as its button's data says it: the keyboard and its button. */
export interface Pressed {
  keyboard: string;
  button: number;
}

type Outcome = 'ok' | 'failed' | 'refused' | 'expired';

/** What runs: an action with its parameters, on a pack and home, pressed or commanded. */
interface Execution {
  place: { pack: string; home: string };
  button: { action: string; params: Params };
  /** How a hand-over names it: `the button "Good"`, `the command /review`. */
  what: string;
  /** The keyboard pressed, which an edit of its message replaces. */
  pressed?: StoredKeyboard;
}

/**
 * Presses of pack actions' buttons (SPEC §3): `refusal` is asked when the press arrives
 * (before the conversation's lane), `run` runs it in the lane, so it never races a turn.
 * A press runs its action at once, with no model call, on the home the keyboard was made for,
 * and shows the reply in place of the pressed message (or as a new one), with the next
 * keyboard; `then: ask` then hands over to the model as a turn.
 */
export function createActionPresses(deps: ActionPressDeps) {
  const { log } = deps;
  const logRun = (
    outcome: Outcome,
    at: { pack?: string; action?: string; ms?: number; err?: unknown },
  ) =>
    log[outcome === 'failed' ? 'warn' : 'info']({ event: 'action_run', outcome, ...at }, 'press');

  /** The keyboard and button a press names, if it still exists and was shown where pressed. */
  function found(pressed: Pressed, where: Address) {
    const keyboard = deps.keyboards.find(pressed.keyboard);
    const button = keyboard?.buttons[pressed.button];
    if (!keyboard || !button) return undefined;
    return addressKey(keyboard.address) === addressKey(where) ? { keyboard, button } : undefined;
  }

  /**
   * Why this press may not run, as the presser is told, or undefined when it may: the
   * keyboard must still be there (in this chat), and the presser be the person whose home it
   * acts on. A refused press runs nothing.
   */
  function refusal(pressed: Pressed, event: Callback): string | undefined {
    const hit = found(pressed, event.address);
    if (!hit) {
      logRun('expired', {});
      return EXPIRED_BUTTONS;
    }
    const { keyboard, button } = hit;
    const who = deps.presser(homeOfKey(keyboard.home), event.address);
    if (who.id === undefined || who.id === event.senderId) return undefined;
    logRun('refused', { pack: keyboard.pack, action: button.action });
    return onlyFor(who.name);
  }

  /**
   * Runs the press in its conversation's lane (see `execute`). A press whose keyboard went
   * while it waited (a second tap) is settled without a word (its presser heard nothing was
   * wrong, and the first tap shows).
   */
  async function run(event: Callback, pressed: Pressed, signal: AbortSignal): Promise<void> {
    const hit = found(pressed, event.address);
    if (!hit) {
      logRun('expired', {});
      deps.replies.settle([event.origin]);
      return;
    }
    const { keyboard, button } = hit;
    const place = { pack: keyboard.pack, home: keyboard.home };
    await execute(
      event,
      { place, button, what: `the button "${button.label}"`, pressed: keyboard },
      signal,
    );
  }

  /**
   * A skill command that runs an action (`action:` in its SKILL.md): the action runs at once,
   * with no model call, on the home the message uses, for the person whose home it is (anyone
   * else hears who may, and nothing runs); its reply is a new message with its keyboard. The
   * pack is bound to the conversation as by a model turn, so its jobs run there.
   */
  async function start(
    event: Command,
    target: { pack: string; action: string },
    signal: AbortSignal,
  ): Promise<void> {
    const home = deps.homeOf(event);
    const who = deps.presser(home, event.address);
    if (who.id !== undefined && who.id !== event.senderId) {
      logRun('refused', target);
      return await deps.replies.reply(event.address, plain(onlyFor(who.name)), [event.origin]);
    }
    deps.enter(event.address, target.pack);
    const place = { pack: target.pack, home: homeKey(home) };
    const button = { action: target.action, params: {} };
    await execute(event, { place, button, what: `the command /${event.command}` }, signal);
  }

  /**
   * Runs `button`'s action on `place`'s pack and home (`what` names it to a hand-over). The
   * reply, its new keyboard, the removal of the `pressed` one (when the reply replaces its
   * message) and the event's acknowledgement are written in one transaction, then sent. A
   * failed action changed nothing and is told in one sentence; its keyboard stays. The pack's
   * transaction and the core's follow each other with nothing awaited between: only the
   * process dying between the two could leave a press to run again after a restart.
   */
  async function execute(
    event: Callback | Command,
    { place, button, what, pressed }: Execution,
    signal: AbortSignal,
  ): Promise<void> {
    const pack = deps.packs.get(place.pack);
    const action = pack?.manifest.actions.find((a) => a.id === button.action);
    const at = { pack: place.pack, action: button.action };
    if (!pack || !action) {
      logRun('failed', at);
      return await deps.replies.reply(event.address, plain(ACTION_GONE), [event.origin]);
    }
    const started = deps.clock.now();
    let outcome: ActionOutcome;
    try {
      const storage = deps.packs.storage(pack.name, homeOfKey(place.home));
      const dates = dateParams(deps.clock, deps.timezone);
      const owned = pack.manifest.schema.owned_tables;
      outcome = runAction(storage.db, action, owned, button.params, dates);
    } catch (error) {
      logRun('failed', { ...at, ms: deps.clock.now() - started, err: error });
      if (!(error instanceof ActionError)) throw error;
      return await deps.replies.reply(event.address, plain(error.message), [event.origin]);
    }
    const ids = deps.transaction(() => show(event, place, action, outcome, pressed));
    logRun('ok', { ...at, ms: deps.clock.now() - started });
    await deps.outbox.dispatch(ids);
    if (action.then === 'ask') await handOver(event, pack, what, outcome, signal);
  }

  /** Writes the reply (in place of the pressed message, or new) and settles the event. */
  function show(
    event: Callback | Command,
    at: { pack: string; home: string },
    action: ActionSpec,
    outcome: ActionOutcome,
    pressed: StoredKeyboard | undefined,
  ): number[] {
    const { address } = event;
    const place = { ...at, address };
    const buttons =
      outcome.buttons.length > 0 ? { keyboard: deps.keyboards.mint(place, outcome.buttons) } : {};
    const render = deps.outbox.renderFor(address);
    const shown = render.text({ ...markdown(outcome.text), ...buttons });
    const parts: TextPart[] =
      shown.length > 0 ? shown : render.text({ ...plain(NOTHING_SHOWN), ...buttons });
    const edit = pressed && action.message === 'edit' ? event.messageId : undefined;
    const ids =
      edit === undefined
        ? deps.outbox.writeParts(address, parts)
        : [
            deps.outbox.writeEdit(address, edit, parts[0]!),
            ...deps.outbox.writeParts(address, parts.slice(1)),
          ];
    // The message no longer shows the pressed keyboard: a second tap on it hears it expired.
    if (edit !== undefined && pressed) deps.keyboards.remove(pressed.id);
    // A hand-over is settled by its model turn's commit.
    if (action.then !== 'ask') deps.replies.acknowledge([event.origin]);
    return ids;
  }

  /**
   * `then: ask`: the model takes over in the pack's own session (without rebinding the
   * conversation), told what was pressed and what it showed, and asked the action's prompt.
   */
  async function handOver(
    event: Callback | Command,
    pack: Pack,
    what: string,
    outcome: ActionOutcome,
    signal: AbortSignal,
  ): Promise<void> {
    const verb = event.kind === 'command' ? 'sent' : 'pressed';
    const content = `[The user ${verb} ${what} of ${pack.displayName}; the message now shows:]\n${outcome.text}\n\n${outcome.prompt ?? ''}`;
    await deps.chatTurn({
      events: [event],
      pack: pack.name,
      signal,
      visit: true,
      inputs: [{ content: content.trim(), sourceKey: sourceKey(event) }],
    });
  }

  return { refusal, run, start };
}

/** Shown when a reply's template filled to nothing visible. */
const NOTHING_SHOWN = '✓';

export type ActionPresses = ReturnType<typeof createActionPresses>;
