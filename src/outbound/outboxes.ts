import type { Renderer } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { OutboxRepo } from '../store/outbox-repo.ts';
import {
  type ChannelOutbox,
  createOutbox,
  type DispatchOptions,
  type OutboxDeps,
} from './outbox.ts';

export type { DispatchOptions } from './outbox.ts';

/** The ChannelOutbox methods that take the address they act on first. */
type AddressedMethod = {
  [K in keyof ChannelOutbox]: ChannelOutbox[K] extends (to: Address, ...rest: never[]) => unknown
    ? K
    : never;
}[keyof ChannelOutbox];

export interface OutboxesDeps extends Omit<OutboxDeps, 'channel'> {
  channels: readonly OutboxDeps['channel'][];
  repo: OutboxRepo;
}

/**
 * The outbox of every channel in one: each call goes to the outbox of its address's
 * `platform` (outbox.ts: one per channel, with its own lanes and limiter), and rows are sent
 * by the channel that wrote them. An address of a platform no channel serves is a bug.
 */
export function createOutboxes(deps: OutboxesDeps) {
  const { channels, ...shared } = deps;
  const byPlatform = new Map<string, ChannelOutbox>(
    channels.map((channel) => [channel.platform, createOutbox({ ...shared, channel })]),
  );
  const all = [...byPlatform.values()];
  const only = all.length === 1 ? all[0] : undefined;

  const of = (to: Pick<Address, 'platform'>): ChannelOutbox => {
    const outbox = byPlatform.get(to.platform);
    if (!outbox) throw new Error(`no channel serves ${to.platform} addresses`);
    return outbox;
  };

  /**
   * A ChannelOutbox method whose first argument is the address, called on the outbox of that
   * address's channel. Its type is the method's own (generic ones stay generic).
   */
  const byAddress = <K extends AddressedMethod>(method: K): ChannelOutbox[K] =>
    ((to: Address, ...rest: unknown[]) =>
      (of(to)[method] as (to: Address, ...rest: unknown[]) => unknown)(
        to,
        ...rest,
      )) as ChannelOutbox[K];

  /**
   * Rows go to their own channel's outbox, in the order given within each. The row is read
   * for its channel (a point read): remembering who wrote which id instead saved nothing
   * measurable, and a rolled-back write's id is handed out again.
   */
  function dispatch(ids: readonly number[], options?: DispatchOptions): Promise<boolean> {
    if (only) return only.dispatch(ids, options);
    const groups = new Map<ChannelOutbox, number[]>();
    for (const id of ids) {
      const row = deps.repo.get(id);
      const outbox = row && byPlatform.get(row.channel);
      if (outbox) groups.set(outbox, [...(groups.get(outbox) ?? []), id]);
    }
    const sent = [...groups].map(([outbox, group]) => outbox.dispatch(group, options));
    return Promise.all(sent).then((results) => results.every(Boolean));
  }

  return {
    /** How text shows on `to`'s channel: its markup and its limits. */
    renderFor: (to: Pick<Address, 'platform'>): Renderer => of(to).render,
    /** The least time between two updates of a reply streamed on `to`'s channel, if it says. */
    streamIntervalFor: (to: Pick<Address, 'platform'>): number | undefined =>
      of(to).streamIntervalMs,
    write: byAddress('write'),
    writeParts: byAddress('writeParts'),
    writePayload: byAddress('writePayload'),
    writeEdit: byAddress('writeEdit'),
    writeDelete: byAddress('writeDelete'),
    dispatch,
    /**
     * The newest row of any chat: read right after a transaction that wrote rows, it marks
     * where they end (a voice note is dropped once its chat has a row past its answer's).
     */
    newestRow: (): number => deps.repo.newestId(),
    /** Whether `to` got a row after row `id` (a later message went out there). */
    wroteAfter: (to: Address, id: number): boolean => deps.repo.wroteAfter(to, id),
    /** Marks rows as a job's delivered answer, from `pack` (a reply to them goes to it). */
    markJob: (ids: readonly number[], pack: string): void => deps.repo.markJob(ids, pack),
    /** The pack whose job sent message `messageId` of a chat, if a job sent it. */
    jobPackOf: (to: Pick<Address, 'platform' | 'chatId'>, messageId: string): string | undefined =>
      deps.repo.jobPackOf(to, messageId),
    /** The channel's id of the message a row became; undefined until it is sent. */
    messageIdOf: (rowId: number): string | undefined =>
      deps.repo.get(rowId)?.messageId ?? undefined,
    recordStreamed: byAddress('recordStreamed'),
    streamed: byAddress('streamed'),
    send: byAddress('send'),
    chatAction: byAddress('chatAction'),
    draft: byAddress('draft'),
    dropWaiting: byAddress('dropWaiting'),
    sendLive: byAddress('sendLive'),
    editLive: byAddress('editLive'),
    call: byAddress('call'),
    callOptional: byAddress('callOptional'),
    callSide: byAddress('callSide'),
    /** A platform answers again: its stalled chats try at once instead of after their backoff. */
    retryNow: (platform: string): void => byPlatform.get(platform)?.retryNow(),
    /** Sends every channel's rows left unsent by an earlier run. */
    resumeUnsent: async (): Promise<void> => {
      await Promise.all(all.map((outbox) => outbox.resumeUnsent()));
    },
    close: (): void => {
      for (const outbox of all) outbox.close();
    },
    idle: async (): Promise<void> => {
      await Promise.all(all.map((outbox) => outbox.idle()));
    },
  };
}

export type Outbox = ReturnType<typeof createOutboxes>;
