import type { OutboundText, Renderer, TextPart } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { OutboxRepo } from '../store/outbox-repo.ts';
import {
  type ChannelOutbox,
  createOutbox,
  type DispatchOptions,
  type OutboxDeps,
} from './outbox.ts';

export type { DispatchOptions } from './outbox.ts';

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
    write: (to: Address, message: OutboundText) => of(to).write(to, message),
    writeParts: (to: Address, parts: Parameters<ChannelOutbox['writeParts']>[1]) =>
      of(to).writeParts(to, parts),
    writePayload: (to: Address, payload: Parameters<ChannelOutbox['writePayload']>[1]) =>
      of(to).writePayload(to, payload),
    writeEdit: (to: Address, messageId: string, part: Parameters<ChannelOutbox['writeEdit']>[2]) =>
      of(to).writeEdit(to, messageId, part),
    writeDelete: (to: Address, messageId: string) => of(to).writeDelete(to, messageId),
    dispatch,
    /** The channel's id of the message a row became; undefined until it is sent. */
    messageIdOf: (rowId: number): string | undefined =>
      deps.repo.get(rowId)?.messageId ?? undefined,
    recordStreamed: (to: Address, key: string, messageId: string, part: TextPart) =>
      of(to).recordStreamed(to, key, messageId, part),
    streamed: (to: Address, key: string) => of(to).streamed(to, key),
    send: (to: Address, message: Parameters<ChannelOutbox['send']>[1], options?: DispatchOptions) =>
      of(to).send(to, message, options),
    chatAction: (to: Address, action: Parameters<ChannelOutbox['chatAction']>[1]) =>
      of(to).chatAction(to, action),
    draft: (to: Address, draftId: number, part: Parameters<ChannelOutbox['draft']>[2]) =>
      of(to).draft(to, draftId, part),
    dropWaiting: (to: Address, what: Parameters<ChannelOutbox['dropWaiting']>[1]) =>
      of(to).dropWaiting(to, what),
    sendLive: (to: Address, part: Parameters<ChannelOutbox['sendLive']>[1]) =>
      of(to).sendLive(to, part),
    editLive: (to: Address, messageId: string, part: Parameters<ChannelOutbox['editLive']>[2]) =>
      of(to).editLive(to, messageId, part),
    call: <T>(to: Address, fn: () => Promise<T>) => of(to).call(to, fn),
    callOptional: <T>(to: Address, method: string, fn: () => Promise<T>) =>
      of(to).callOptional(to, method, fn),
    callSide: <T>(to: Address, method: string, fn: () => Promise<T>) =>
      of(to).callSide(to, method, fn),
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
