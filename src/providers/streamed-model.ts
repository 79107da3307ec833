import type { ChatModel, ChatRequest, ChatResponse, ModelInfo } from '../core/ports.ts';
import type { TokenUsage, ToolCall } from '../core/types.ts';
import type { ChatModelOptions } from './chat-options.ts';
import { withIdleTimeout } from './idle-timeout.ts';
import { IncompleteResponse } from './response-errors.ts';
import { refusalLog } from './tool-schemas.ts';

/**
 * `model` with `load` (its SDK, loaded on first use) awaited before each call, outside the
 * call's idle timeout: loading our own code is not the provider making no progress. On a
 * busy machine a first Gemini call spent longer loading @google/genai than a short
 * LLM_TIMEOUT_MS and failed before sending a byte.
 */
export function loadedFirst(model: ChatModel, load: () => Promise<unknown>): ChatModel {
  return {
    info: model.info,
    async complete(request, options) {
      await load();
      return model.complete(request, options);
    },
  };
}

/** What a provider's `send` gets besides the request: the call's signal and listeners. */
export interface StreamedCall {
  /** Aborts with the caller's signal or when the call makes no progress for too long. */
  signal: AbortSignal;
  /** Marks progress (a chunk came); assembleAnswer calls it for every chunk. */
  progress: () => void;
  onText: ((delta: string) => void) | undefined;
  /** Reports a tool left out of the request because its schema cannot be sent. */
  refused: (tool: string, reason: string) => void;
}

/**
 * The shell every streamed chat adapter shares: its info, the refused-tool log, the idle
 * timeout around each call and the mapping of the SDK's errors. `send` sends the request
 * and assembles the answer the provider's way.
 */
export function streamedChatModel(
  options: ChatModelOptions,
  provider: string,
  send: (request: ChatRequest, call: StreamedCall) => Promise<ChatResponse>,
  mapError: (error: unknown, signal: AbortSignal) => unknown,
): ChatModel {
  const info: ModelInfo = {
    provider,
    model: options.model,
    acceptsImages: options.acceptsImages ?? false,
  };
  const refused = refusalLog(options.log, provider, options.model);
  return {
    info,
    async complete(request, { signal, onText }) {
      return withIdleTimeout(
        { provider, timeoutMs: options.timeoutMs, signal },
        (sdkSignal, progress) => send(request, { signal: sdkSignal, progress, onText, refused }),
        (error) => mapError(error, signal),
      );
    },
  };
}

/** The answer as its chunks build it; each provider's reader fills it from its own chunk shape. */
export interface AnswerDraft {
  /** Tool calls so far: a reader pushes whole calls or grows them fragment by fragment. */
  calls: ToolCall[];
  usage: TokenUsage;
  /** The provider said the answer is whole (a finish reason, or a blocked prompt). */
  finished: boolean;
  /** Adds streamed text to the answer and hands it on to the listener. */
  addText(delta: string): void;
}

/**
 * Assembles a streamed answer: every chunk counts as progress (the idle timeout) and goes to
 * `read`. A stream that ends before the provider said it finished was cut off and throws
 * IncompleteResponse: it is never taken for a whole answer.
 */
export async function assembleAnswer<Chunk>(
  stream: AsyncIterable<Chunk>,
  progress: () => void,
  onText: ((delta: string) => void) | undefined,
  read: (chunk: Chunk, draft: AnswerDraft) => void,
): Promise<ChatResponse> {
  let text = '';
  const draft: AnswerDraft = {
    calls: [],
    usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    finished: false,
    addText(delta) {
      text += delta;
      onText?.(delta);
    },
  };
  for await (const chunk of stream) {
    progress();
    read(chunk, draft);
  }
  if (!draft.finished) throw new IncompleteResponse();
  return { text, toolCalls: draft.calls, usage: draft.usage };
}
