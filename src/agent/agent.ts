import { afterQueuedTasks, background } from '../core/background.ts';
import type { Clock } from '../core/clock.ts';
import type { ChatModel, ChatRequest, Logger, ToolRunner, UserInput } from '../core/ports.ts';

export type { ToolRunner, UserInput } from '../core/ports.ts';

import type { ChatMessage, ImageInput, ToolCall } from '../core/types.ts';
import type { SessionRepo, SessionRow } from '../store/session-repo.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { PackCaps, QuotaGate } from '../usage/quota.ts';
import { createCacheWatch } from './cache-watch.ts';
import { cutAnswer, stoppedAnswer } from './cut-answer.ts';
import { DEFAULT_TURN_TIMEOUT_MS, type Deadline, deadlineNote, startDeadline } from './deadline.ts';
import { compactionCut, estimateTokens, repairHistory } from './history.ts';
import { flushMemory, type MemoryNotes } from './memory-flush.ts';
import { type CallScope, createModelCaller, type ModelCall } from './model-call.ts';
import { defaultRetryPolicy, type RetryPolicy } from './retry.ts';
import { summarize } from './summarize.ts';
import { createSentStamps } from './time-stamp.ts';
import { toolImagesMessage } from './tool-images.ts';

/** At most this many model calls in one turn. */
export const MAX_MODEL_CALLS = 20;
/** History above this estimate is compacted: older messages become a summary. */
export const DEFAULT_HISTORY_BUDGET = 24_000;
/** Messages always kept verbatim when compacting. */
const KEEP_RECENT = 6;

export interface TurnInput {
  session: SessionRow;
  turnId: string;
  pack: string;
  /** The job whose run this turn is: its calls are booked to it (`usage_events.job_id`). */
  jobId?: string | undefined;
  packCaps?: PackCaps | undefined;
  /** Who the turn is for, whose caps apply, and its channel (CallScope). */
  person?: string | null | undefined;
  capPerson?: string | null | undefined;
  channel?: string | undefined;
  /** Set by /compact, which must work on a session that reached its cap. */
  ignoreSessionCap?: boolean;
  chatId: string;
  threadId: string | undefined;
  system: string;
  /**
   * The pack's own part of `system` (its sections): when it changes, the pack's prompt
   * changed, and a request that repeats less of the previous one is no cache bust.
   */
  packPrompt?: string | undefined;
  /**
   * The user's messages for this turn, each with a key that makes storing it idempotent: a
   * replayed turn stores only what the crashed run had not stored yet.
   */
  inputs: UserInput[];
  signal: AbortSignal;
  tools?: ToolRunner | undefined;
  /** A model that answers instead of the default one (a pack's `model`). */
  model?: ChatModel | undefined;
  /**
   * Messages the user sent while the turn runs (queue mode `steer`), asked for before each
   * model call: they join the turn as user messages after what it stored so far.
   */
  steer?: () => UserInput[];
  /** Where the turn's progress goes as it happens (see AgentEvent). */
  onEvent?: (event: AgentEvent) => void;
  /** The pack's MEMORY.md: compaction first lets the model save durable facts there. */
  memory?: MemoryNotes | undefined;
  /**
   * Whether the memory flush of a tainted history may add `facts` to MEMORY.md: the owner is
   * asked (SPEC §17). Absent (an unattended run): such a flush is skipped.
   */
  mayKeep?: (facts: string, signal: AbortSignal, pause: Pause) => Promise<boolean>;
}

/** Runs `work` with the turn's deadline stopped (a person is being waited for). */
type Pause = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * The turn's progress, reported through one sink: text as it streams, a restart (the
 * fallback model starts over, so the text so far is void), and each tool call with its
 * result.
 */
export type AgentEvent =
  | { type: 'text'; delta: string }
  | { type: 'restart' }
  | { type: 'tool'; call: ToolCall; result: string };

export interface AgentDeps {
  model: ChatModel;
  /** Used once when the primary fails transiently (LLM_FALLBACK). */
  fallback?: ChatModel | undefined;
  sessions: SessionRepo;
  ledger: Ledger;
  quota: QuotaGate;
  clock: Clock;
  log: Logger;
  /** The user's time zone: each user message is stamped with its local time (time-stamp.ts). */
  timezone: string;
  historyBudgetTokens?: number;
  /** How long one turn may take, model calls and tools together (TURN_TIMEOUT_MS). */
  turnTimeoutMs?: number;
  /** Retries of a failing model call (tests shorten the waits). */
  retry?: RetryPolicy;
}

/** What a turn produced; `timedOut` when the deadline cut the answer short. */
export interface TurnResult {
  answer: string;
  modelCalls: number;
  timedOut: boolean;
}

/**
 * The ReAct loop. The user's input is stored before the model is called, tool calls and
 * results as they happen; the final answer is returned, not stored: the caller stores it
 * in the one transaction that also writes its delivery and acknowledges the turn's origin,
 * so a crash leaves the turn either to be run again or finished, never half-delivered.
 * Every paid call passes the quota gate first and leaves a ledger row after (see
 * model-call.ts). A turn has a deadline: when it passes, the model call or tool is aborted
 * and the text streamed so far, with a note, is the answer.
 */
export function createAgent(deps: AgentDeps) {
  const { sessions, clock, log } = deps;
  const budget = deps.historyBudgetTokens ?? DEFAULT_HISTORY_BUDGET;
  const turnTimeoutMs = deps.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  const callModel = createModelCaller({ ...deps, retry: deps.retry ?? defaultRetryPolicy });
  const stamps = createSentStamps(deps.timezone);
  const cacheWatch = createCacheWatch(log);

  /** A call that is not streamed to the user (summaries). */
  const quietCall = (input: TurnInput, signal: AbortSignal) => (request: ChatRequest) =>
    callModel({ scope: scopeOf(input), request, signal, model: input.model }).then((r) => r.text);

  /**
   * The memory flush before a compaction. Only an abort stops the compaction: a failed
   * flush is logged, and the summary still keeps the gist.
   */
  async function flush(
    input: TurnInput,
    session: SessionRow,
    messages: readonly ChatMessage[],
    signal: AbortSignal,
    pause: Pause = (work) => work(),
  ) {
    if (!input.memory) return;
    // Of a tainted history, the flush is a memory write that asks (SPEC §17).
    const mayKeep =
      session.taintedAt === null
        ? undefined
        : (facts: string) => input.mayKeep?.(facts, signal, pause) ?? Promise.resolve(false);
    try {
      const saved = await flushMemory(messages, input.memory, quietCall(input, signal), mayKeep);
      log.info(
        { event: 'memory_flushed', sessionId: input.session.id, chars: saved.length },
        'memory flushed before compaction',
      );
    } catch (error) {
      if (signal.aborted) throw error;
      log.warn({ event: 'memory_flush_failed', err: error }, 'memory flush failed');
    }
  }

  /**
   * The history the model sees: compacted when long, each turn's user message stamped with
   * its time, repaired. What a request sends is what the previous one sent plus what was
   * added since (prefix caching): a message, once sent, is sent the same way until the
   * session is compacted — tool results too, which are therefore not shortened later.
   * `shown`: the images tools returned in this turn, by the key of their note.
   */
  async function prepareHistory(
    input: TurnInput,
    signal: AbortSignal,
    shown: ReadonlyMap<string, ImageInput[]> = new Map(),
    pause?: Pause,
  ): Promise<{ system: string; messages: ChatMessage[]; summaryUpto: number | null }> {
    let session = sessions.session(input.session.id) ?? input.session;
    let stored = sessions.history(session.id, session.summaryUpto);
    // Measured as sent: with the time lines (and sent so, unless it is compacted now).
    let stamped = stamps.stamp(stored);
    if (estimateTokens(stamped) > budget) {
      const cut = compactionCut(stored, KEEP_RECENT);
      const older = stored.slice(0, cut);
      const last = older.at(-1);
      if (last) {
        await flush(input, session, repairHistory(older), signal, pause);
        const summary = await summarize(
          repairHistory(older),
          session.summary,
          quietCall(input, signal),
          session.taintedAt !== null,
        );
        sessions.saveSummary(session.id, summary, last.id);
        log.info({ event: 'session_compacted', sessionId: session.id, upto: last.id }, 'compacted');
        session = sessions.session(session.id) ?? session;
        stored = sessions.history(session.id, session.summaryUpto);
        stamped = stamps.stamp(stored);
      }
    }
    const system = session.summary
      ? `${input.system}\n\n# Earlier in this session (summary)\n${session.summary}`
      : input.system;
    const images = new Map([
      ...input.inputs.flatMap((i) => (i.images?.length ? [[i.sourceKey, i.images] as const] : [])),
      ...shown,
    ]);
    const withImages =
      images.size === 0
        ? stamped
        : stamped.map((m) => {
            const attached = m.sourceKey === undefined ? undefined : images.get(m.sourceKey);
            return attached ? { ...m, images: attached } : m;
          });
    return {
      system,
      messages: repairHistory(withImages),
      summaryUpto: session.summaryUpto,
    };
  }

  function store(
    input: Pick<TurnInput, 'session' | 'turnId'>,
    message: ChatMessage & { sourceKey?: string },
  ): void {
    sessions.addMessage(
      { ...message, sessionId: input.session.id, turnId: input.turnId },
      clock.now(),
    );
  }

  /** Steering: what the user sent since the last model call is stored, and read next. */
  function takeSteered(input: TurnInput, tools: ToolRunner | undefined): void {
    for (const { content, sourceKey, taint } of input.steer?.() ?? []) {
      store(input, { role: 'user', content, sourceKey });
      tools?.observe?.(content, taint);
    }
  }

  /**
   * The loop itself, under `deadline`. `turn.partial` is the text the current model call
   * has streamed, which is what is kept when the deadline cuts the turn short (or a /stop,
   * while `turn.streaming`); `turn.images`
   * the images tools returned, which go with the rest of the turn's requests.
   */
  async function loop(
    input: TurnInput,
    deadline: Deadline,
    turn: { calls: number; partial: string; streaming: boolean; images: Map<string, ImageInput[]> },
  ): Promise<string> {
    const tools = input.tools?.specs.length ? input.tools : undefined;
    for (const { content, taint } of input.inputs) tools?.observe?.(content, taint);
    for (turn.calls = 1; ; turn.calls++) {
      takeSteered(input, tools);
      const history = await prepareHistory(
        input,
        deadline.signal,
        turn.images,
        deadline.whilePaused,
      );
      const { system, messages } = history;
      const lastCall = turn.calls === MAX_MODEL_CALLS || tools?.stopped?.() === true;
      turn.partial = '';
      // The conversation, then the system prompt's clock line (not stored, always last).
      const request = {
        system,
        messages: [...messages, stamps.now(clock.now())],
        ...(tools && !lastCall ? { tools: tools.specs } : {}),
      };
      // A last call goes without its tools on purpose: not compared (SPEC §14). Compared once
      // the request has left, after the turns already queued (a batch's later updates): the
      // watch only logs, and hashing a long session's messages need not delay any call.
      if (!(tools && lastCall)) {
        const context = {
          pack: input.pack,
          turnId: input.turnId,
          summaryUpto: history.summaryUpto,
          packPrompt: input.packPrompt ?? '',
        };
        const sessionId = input.session.id;
        background(
          log,
          'cache_watch_failed',
          afterQueuedTasks().then(() => cacheWatch.observe(sessionId, request, context)),
        );
      }
      // While it streams, its text is what a /stop keeps (not once its tools run: stored).
      turn.streaming = true;
      const response = await callModel(streamedCall(input, deadline.signal, turn, request));
      turn.streaming = false;
      if (response.toolCalls.length === 0 || !tools || lastCall) {
        deadline.dispose();
        return response.text.trim() || '(no answer)';
      }
      store(input, { role: 'assistant', content: response.text, toolCalls: response.toolCalls });
      for (const call of response.toolCalls) {
        const result = await tools.run(call, deadline.signal, deadline.whilePaused);
        store(input, { role: 'tool', content: result, toolCallId: call.id });
        input.onEvent?.({ type: 'tool', call, result });
      }
      const shown = tools.takeImages?.() ?? [];
      if (shown.length > 0) {
        const { images, ...message } = toolImagesMessage(input.turnId, turn.calls, shown);
        store(input, { role: 'user', ...message });
        turn.images.set(message.sourceKey, images);
      }
    }
  }

  return {
    /**
     * Runs one turn and returns the answer, which the caller stores (`answerMessage`) in its
     * own transaction. When the deadline passes, the answer is what the current model call
     * streamed, plus a note saying so.
     */
    async run(input: TurnInput): Promise<TurnResult> {
      for (const { content, sourceKey } of input.inputs)
        store(input, { role: 'user', content, sourceKey });
      const deadline = startDeadline(clock, turnTimeoutMs, input.signal);
      const turn = {
        calls: 0,
        partial: '',
        streaming: false,
        images: new Map<string, ImageInput[]>(),
      };
      try {
        const answer = await loop(input, deadline, turn);
        return { answer, modelCalls: turn.calls, timedOut: false };
      } catch (error) {
        if (!deadline.expired()) {
          const stopped = stoppedAnswer(input.signal, turn.streaming ? turn.partial : undefined);
          if (stopped !== undefined) {
            log.info(
              { event: 'answer_stopped', turnId: input.turnId },
              'stopped; keeping its text',
            );
            return { answer: stopped, modelCalls: turn.calls, timedOut: false };
          }
          const answer = cutAnswer(error, turn.partial);
          if (answer === undefined) throw error;
          log.warn(
            { event: 'answer_cut', turnId: input.turnId, err: error },
            'the answer broke off after part of it was shown; answering with that part',
          );
          return { answer, modelCalls: turn.calls, timedOut: false };
        }
        log.warn(
          { event: 'turn_deadline', turnId: input.turnId, ms: turnTimeoutMs, err: error },
          'turn deadline passed; answering with what it has',
        );
        const answer = `${turn.partial.trim()}\n\n${deadlineNote(turnTimeoutMs)}`.trim();
        return { answer, modelCalls: turn.calls, timedOut: true };
      } finally {
        deadline.dispose();
      }
    },

    /** Stores a turn's final answer (the caller runs this inside its transaction). */
    storeAnswer(input: Pick<TurnInput, 'session' | 'turnId'>, answer: string): void {
      store(input, { role: 'assistant', content: answer });
    },

    /** Summarizes a whole session (for /compact); the caller starts the fresh session. */
    async compact(input: TurnInput): Promise<string> {
      const session = sessions.session(input.session.id) ?? input.session;
      const messages = repairHistory(sessions.history(session.id, session.summaryUpto));
      const deadline = startDeadline(clock, turnTimeoutMs, input.signal);
      try {
        await flush(input, session, messages, deadline.signal, deadline.whilePaused);
        return await summarize(
          messages,
          session.summary,
          quietCall(input, deadline.signal),
          session.taintedAt !== null,
        );
      } catch (error) {
        // The deadline's own error says what happened; the provider only saw an abort.
        throw deadline.expired() ? deadline.signal.reason : error;
      } finally {
        deadline.dispose();
      }
    },
  };
}

export type Agent = ReturnType<typeof createAgent>;

function scopeOf(input: TurnInput): CallScope {
  return {
    pack: input.pack,
    chatId: input.chatId,
    threadId: input.threadId,
    sessionId: input.session.id,
    turnId: input.turnId,
    jobId: input.jobId,
    packCaps: input.packCaps,
    ignoreSessionCap: input.ignoreSessionCap,
    person: input.person,
    capPerson: input.capPerson,
    channel: input.channel,
  };
}

/** A call whose text streams to the user and is also kept in `turn.partial`. */
function streamedCall(
  input: TurnInput,
  signal: AbortSignal,
  turn: { partial: string },
  request: ChatRequest,
): ModelCall {
  return {
    scope: scopeOf(input),
    request,
    signal,
    model: input.model,
    onText: (delta) => {
      turn.partial += delta;
      input.onEvent?.({ type: 'text', delta });
    },
    onRestart: () => {
      turn.partial = '';
      input.onEvent?.({ type: 'restart' });
    },
  };
}
