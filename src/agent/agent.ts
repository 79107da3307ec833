import type { Clock } from '../core/clock.ts';
import { AbortedError, ProviderError } from '../core/errors.ts';
import type { ChatModel, Logger, ToolSpec } from '../core/ports.ts';
import type { ChatMessage, ToolCall } from '../core/types.ts';
import type { SessionRepo, SessionRow } from '../store/session-repo.ts';
import type { Ledger } from '../usage/ledger.ts';

/** At most this many model calls in one turn. */
export const MAX_MODEL_CALLS = 20;

export interface TurnInput {
  session: SessionRow;
  turnId: string;
  chatId: number;
  threadId: number | undefined;
  system: string;
  /** The user's input for this turn, and a key that makes storing it idempotent. */
  content: string;
  sourceKey: string;
  signal: AbortSignal;
  onText?: (delta: string) => void;
  /** Called before the final answer is stored and delivered (a stream settles here). */
  beforeFinish?: () => Promise<void>;
}

/** Runs the tools a model asked for; a failing tool becomes an error result the model sees. */
export interface ToolRunner {
  specs: ToolSpec[];
  run(call: ToolCall, signal: AbortSignal): Promise<string>;
}

export interface AgentDeps {
  model: ChatModel;
  sessions: SessionRepo;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** Runs `fn` in one database transaction. */
  transaction: <T>(fn: () => T) => T;
}

/**
 * The turn's conversation with the model. The user's input is stored before the model is
 * called, tool calls and results as they happen, and the final answer together with
 * whatever `deliver` writes (the outbox rows), in one transaction — so a crash either
 * leaves the turn to be run again or finished, never half-delivered.
 */
export function createAgent(deps: AgentDeps) {
  const { model, sessions, ledger, clock, log } = deps;

  async function callModel(input: TurnInput, messages: ChatMessage[], tools?: ToolRunner) {
    const started = clock.now();
    const scope = {
      pack: input.session.pack,
      chatId: input.chatId,
      threadId: input.threadId ?? null,
      sessionId: input.session.id,
      turnId: input.turnId,
    };
    const call = { kind: 'llm' as const, provider: model.info.provider, model: model.info.model };
    try {
      const response = await model.complete(
        { system: input.system, messages, ...(tools ? { tools: tools.specs } : {}) },
        { signal: input.signal, ...(input.onText ? { onText: input.onText } : {}) },
      );
      ledger.record({
        ...call,
        scope,
        ...response.usage,
        latencyMs: clock.now() - started,
        ok: true,
      });
      return response;
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      ledger.record({
        ...call,
        scope,
        latencyMs: clock.now() - started,
        ok: false,
        error: String((error as Error).message),
      });
      if (error instanceof ProviderError)
        log.warn(
          { event: 'provider_error', provider: error.provider, status: error.status, err: error },
          'model call failed',
        );
      throw error;
    }
  }

  return {
    /**
     * Runs one turn and returns the answer. `deliver` is called with the final text inside
     * the transaction that stores it; what it returns is passed back.
     */
    async run<T>(
      input: TurnInput,
      deliver: (answer: string) => T,
      tools?: ToolRunner,
    ): Promise<{ answer: string; delivered: T; modelCalls: number }> {
      const { session, turnId } = input;
      sessions.addMessage(
        {
          sessionId: session.id,
          turnId,
          role: 'user',
          content: input.content,
          sourceKey: input.sourceKey,
        },
        clock.now(),
      );
      for (let calls = 1; calls <= MAX_MODEL_CALLS; calls++) {
        const response = await callModel(input, sessions.history(session.id), tools);
        if (response.toolCalls.length === 0 || !tools || calls === MAX_MODEL_CALLS) {
          const answer = response.text.trim() || '(no answer)';
          await input.beforeFinish?.();
          const delivered = deps.transaction(() => {
            sessions.addMessage(
              { sessionId: session.id, turnId, role: 'assistant', content: answer },
              clock.now(),
            );
            return deliver(answer);
          });
          return { answer, delivered, modelCalls: calls };
        }
        sessions.addMessage(
          {
            sessionId: session.id,
            turnId,
            role: 'assistant',
            content: response.text,
            toolCalls: response.toolCalls,
          },
          clock.now(),
        );
        for (const call of response.toolCalls) {
          const result = await tools.run(call, input.signal);
          sessions.addMessage(
            { sessionId: session.id, turnId, role: 'tool', content: result, toolCallId: call.id },
            clock.now(),
          );
        }
      }
      throw new Error('unreachable');
    },
  };
}

export type Agent = ReturnType<typeof createAgent>;
