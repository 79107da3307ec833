import type { Clock } from '../core/clock.ts';
import { AbortedError, ProviderError } from '../core/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse, Logger, ToolSpec } from '../core/ports.ts';
import type { ChatMessage, ToolCall } from '../core/types.ts';
import type { SessionRepo, SessionRow } from '../store/session-repo.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { PackCaps, QuotaGate } from '../usage/quota.ts';
import { compactionCut, estimateTokens, repairHistory, shortenOldToolResults } from './history.ts';
import { summarize } from './summarize.ts';

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
  packCaps?: PackCaps | undefined;
  /** Set by /compact, which must work on a session that reached its cap. */
  ignoreSessionCap?: boolean;
  chatId: number;
  threadId: number | undefined;
  system: string;
  /**
   * The user's messages for this turn, each with a key that makes storing it idempotent: a
   * replayed turn stores only what the crashed run had not stored yet.
   */
  inputs: UserInput[];
  signal: AbortSignal;
  tools?: ToolRunner | undefined;
  onText?: (delta: string) => void;
  /** The streamed text so far is void (the fallback model starts over). */
  onRestart?: () => void;
  /** Called before the final answer is stored and delivered (a stream settles here). */
  beforeFinish?: () => Promise<void>;
}

export interface UserInput {
  content: string;
  sourceKey: string;
}

/** Runs the tools a model asked for; a failing tool becomes an error result the model sees. */
export interface ToolRunner {
  specs: ToolSpec[];
  run(call: ToolCall, signal: AbortSignal): Promise<string>;
}

export interface AgentDeps {
  model: ChatModel;
  /** Used once when the primary fails transiently (LLM_FALLBACK). */
  fallback?: ChatModel | undefined;
  sessions: SessionRepo;
  ledger: Ledger;
  quota: QuotaGate;
  clock: Clock;
  log: Logger;
  /** Runs `fn` in one database transaction. */
  transaction: <T>(fn: () => T) => T;
  historyBudgetTokens?: number;
}

type Call = { input: TurnInput; request: ChatRequest; stream: boolean };

/**
 * The ReAct loop. The user's input is stored before the model is called, tool calls and
 * results as they happen, and the final answer together with whatever `deliver` writes
 * (the outbox rows) in one transaction — so a crash leaves the turn either to be run again
 * or finished, never half-delivered. Every paid call passes the quota gate first and
 * leaves a ledger row after.
 */
export function createAgent(deps: AgentDeps) {
  const { sessions, clock, log } = deps;
  const budget = deps.historyBudgetTokens ?? DEFAULT_HISTORY_BUDGET;

  /** One paid call to one model, with its ledger row (also when it fails). */
  async function attempt(model: ChatModel, { input, request, stream }: Call) {
    const started = clock.now();
    const entry = {
      kind: 'llm' as const,
      provider: model.info.provider,
      model: model.info.model,
      scope: {
        pack: input.pack,
        chatId: input.chatId,
        threadId: input.threadId ?? null,
        sessionId: input.session.id,
        turnId: input.turnId,
      },
    };
    try {
      const response = await model.complete(request, {
        signal: input.signal,
        ...(stream && input.onText ? { onText: input.onText } : {}),
      });
      deps.ledger.record({
        ...entry,
        ...response.usage,
        latencyMs: clock.now() - started,
        ok: true,
      });
      return response;
    } catch (error) {
      const aborted = error instanceof AbortedError;
      deps.ledger.record({
        ...entry,
        latencyMs: clock.now() - started,
        ok: false,
        error: aborted ? 'aborted' : String((error as Error).message),
      });
      if (error instanceof ProviderError)
        log.warn(
          { event: 'provider_error', provider: error.provider, status: error.status, err: error },
          'model call failed',
        );
      throw error;
    }
  }

  /** Quota gate, primary model, and once the fallback when the primary fails transiently. */
  async function callModel(call: Call): Promise<ChatResponse> {
    const scope = {
      pack: call.input.pack,
      sessionId: call.input.session.id,
      packCaps: call.input.packCaps,
      ignoreSessionCap: call.input.ignoreSessionCap,
    };
    deps.quota.check(scope);
    try {
      return await attempt(deps.model, call);
    } catch (error) {
      const { fallback } = deps;
      if (!fallback || !(error instanceof ProviderError) || !error.transient) throw error;
      log.warn(
        {
          event: 'provider_failover',
          from: `${deps.model.info.provider}:${deps.model.info.model}`,
          to: `${fallback.info.provider}:${fallback.info.model}`,
          status: error.status,
        },
        'primary model failed; using the fallback',
      );
      call.input.onRestart?.();
      deps.quota.check(scope);
      return attempt(fallback, call);
    }
  }

  /** The history the model sees: repaired, old tool output shortened, compacted when long. */
  async function prepareHistory(
    input: TurnInput,
  ): Promise<{ system: string; messages: ChatMessage[] }> {
    let session = sessions.session(input.session.id) ?? input.session;
    let stored = sessions.history(session.id, session.summaryUpto);
    if (estimateTokens(stored) > budget) {
      const cut = compactionCut(stored, KEEP_RECENT);
      const older = stored.slice(0, cut);
      const last = older.at(-1);
      if (last) {
        const summary = await summarize(repairHistory(older), session.summary, (request) =>
          callModel({ input, request, stream: false }).then((r) => r.text),
        );
        sessions.saveSummary(session.id, summary, last.id);
        log.info({ event: 'session_compacted', sessionId: session.id, upto: last.id }, 'compacted');
        session = sessions.session(session.id) ?? session;
        stored = sessions.history(session.id, session.summaryUpto);
      }
    }
    const system = session.summary
      ? `${input.system}\n\n# Earlier in this session (summary)\n${session.summary}`
      : input.system;
    return { system, messages: shortenOldToolResults(repairHistory(stored)) };
  }

  function store(input: TurnInput, message: ChatMessage & { sourceKey?: string }): void {
    sessions.addMessage(
      { ...message, sessionId: input.session.id, turnId: input.turnId },
      clock.now(),
    );
  }

  return {
    /**
     * Runs one turn and returns the answer. `deliver` is called with the final text inside
     * the transaction that stores it; what it returns is passed back.
     */
    async run<T>(
      input: TurnInput,
      deliver: (answer: string) => T,
    ): Promise<{ answer: string; delivered: T; modelCalls: number }> {
      for (const { content, sourceKey } of input.inputs)
        store(input, { role: 'user', content, sourceKey });
      const tools = input.tools?.specs.length ? input.tools : undefined;
      for (let calls = 1; ; calls++) {
        const { system, messages } = await prepareHistory(input);
        const lastCall = calls === MAX_MODEL_CALLS;
        const response = await callModel({
          input,
          request: { system, messages, ...(tools && !lastCall ? { tools: tools.specs } : {}) },
          stream: true,
        });
        if (response.toolCalls.length === 0 || !tools || lastCall) {
          const answer = response.text.trim() || '(no answer)';
          await input.beforeFinish?.();
          const delivered = deps.transaction(() => {
            store(input, { role: 'assistant', content: answer });
            return deliver(answer);
          });
          return { answer, delivered, modelCalls: calls };
        }
        store(input, { role: 'assistant', content: response.text, toolCalls: response.toolCalls });
        for (const call of response.toolCalls) {
          const result = await tools.run(call, input.signal);
          store(input, { role: 'tool', content: result, toolCallId: call.id });
        }
      }
    },

    /** Summarizes a whole session (for /compact); the caller starts the fresh session. */
    async compact(input: TurnInput): Promise<string> {
      const session = sessions.session(input.session.id) ?? input.session;
      const messages = repairHistory(sessions.history(session.id, session.summaryUpto));
      return summarize(messages, session.summary, (request) =>
        callModel({ input, request, stream: false }).then((r) => r.text),
      );
    },
  };
}

export type Agent = ReturnType<typeof createAgent>;
