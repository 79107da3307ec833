import type {
  ApiError,
  Content,
  FunctionDeclaration,
  GenerateContentResponse,
  GoogleGenAI,
  Part,
} from '@google/genai';
import { AbortedError, isAbort, ProviderError } from '../core/errors.ts';
import type { ChatModel, ChatResponse, ToolSpec } from '../core/ports.ts';
import type { ChatMessage } from '../core/types.ts';
import type { ChatModelOptions } from './chat-options.ts';
import { keyRefusal } from './key-hint.ts';
import { mapBrokenResponse, retryAfterFromGoogleBody } from './response-errors.ts';
import { assembleAnswer, loadedFirst, streamedChatModel } from './streamed-model.ts';
import { toolsForProvider } from './tool-schemas.ts';

/** `baseUrl` is the API host root: the SDK adds /v1beta/models/…. */
export type GeminiOptions = ChatModelOptions;

const PROVIDER = 'gemini';

/** The ids we make up for function calls that came without one; never sent back to Gemini. */
const GENERATED_ID = /^call_\d+$/;

type GeminiSdk = typeof import('@google/genai');

/**
 * The SDK, loaded by the first Gemini call: it adds ~30 MB and ~80 ms to a process, and a
 * bot whose models are not Gemini's never needs it.
 */
let sdk: GeminiSdk | undefined;
export async function loadGeminiSdk(): Promise<GeminiSdk> {
  sdk ??= await import('@google/genai');
  return sdk;
}

/** A chat model over the Gemini API (@google/genai), streamed. */
export function createGeminiChatModel(options: GeminiOptions): ChatModel {
  let ai: GoogleGenAI | undefined;
  const client = async () => {
    const { GoogleGenAI } = await loadGeminiSdk();
    ai ??= new GoogleGenAI({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseUrl ? { httpOptions: { baseUrl: options.baseUrl } } : {}),
    });
    return ai;
  };
  const model = streamedChatModel(
    options,
    PROVIDER,
    async (request, { signal, progress, onText, refused }) => {
      const tools = toolsForProvider(request.tools, 'gemini', refused).map(toDeclaration);
      const { models } = await client();
      const stream = await models.generateContentStream({
        model: options.model,
        contents: toGeminiContents(request.messages),
        config: {
          ...(request.system ? { systemInstruction: request.system } : {}),
          ...(tools.length ? { tools: [{ functionDeclarations: tools }] } : {}),
          abortSignal: signal,
        },
      });
      return collect(stream, progress, onText);
    },
    mapGeminiError,
  );
  return loadedFirst(model, loadGeminiSdk);
}

/**
 * Assembles a streamed answer. Gemini puts `finishReason` on the last chunk (a blocked prompt
 * has `promptFeedback.blockReason` instead); a stream that ends with neither was cut off and
 * throws IncompleteResponse.
 */
function collect(
  stream: AsyncIterable<GenerateContentResponse>,
  progress: () => void,
  onText: ((delta: string) => void) | undefined,
): Promise<ChatResponse> {
  return assembleAnswer(stream, progress, onText, (chunk, draft) => {
    if (chunk.candidates?.[0]?.finishReason || chunk.promptFeedback?.blockReason) {
      draft.finished = true;
    }
    // Read the parts directly: `chunk.text` warns when a chunk also holds function calls.
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.text && !part.thought) draft.addText(part.text);
      if (part.functionCall) {
        const fc = part.functionCall;
        draft.calls.push({
          id: fc.id || `call_${draft.calls.length + 1}`,
          name: fc.name ?? '',
          arguments: JSON.stringify(fc.args ?? {}),
        });
      }
    }
    const usage = chunk.usageMetadata;
    if (usage) {
      draft.usage = {
        inputTokens: usage.promptTokenCount ?? 0,
        cachedInputTokens: usage.cachedContentTokenCount ?? 0,
        outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      };
    }
  });
}

/**
 * The conversation as Gemini contents: assistant → 'model' (text and functionCall parts), tool
 * results → 'user' functionResponse parts named after the call they answer. Consecutive
 * contents of one role are merged (parallel tool results become one content), and empty ones
 * are dropped, as Gemini wants non-empty, alternating turns.
 */
export function toGeminiContents(messages: ChatMessage[]): Content[] {
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  for (const message of messages) {
    let role: 'user' | 'model';
    let parts: Part[];
    if (message.role === 'assistant') {
      role = 'model';
      parts = message.content ? [{ text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        callNames.set(call.id, call.name);
        parts.push({
          functionCall: {
            ...(GENERATED_ID.test(call.id) ? {} : { id: call.id }),
            name: call.name,
            args: parseArgs(call.arguments),
          },
        });
      }
    } else if (message.role === 'tool') {
      role = 'user';
      const id = message.toolCallId ?? '';
      parts = [
        {
          functionResponse: {
            ...(id && !GENERATED_ID.test(id) ? { id } : {}),
            name: callNames.get(id) ?? '',
            response: { result: message.content },
          },
        },
      ];
    } else {
      // 'system' mid-conversation has no Gemini role; it is passed as user text.
      role = 'user';
      parts = message.content ? [{ text: message.content }] : [];
      // A user message's images follow its text, inline.
      if (message.role === 'user')
        for (const image of message.images ?? [])
          parts.push({ inlineData: { mimeType: image.mimeType, data: image.data } });
    }
    if (!parts.length) continue;
    const last = contents.at(-1);
    if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else contents.push({ role, parts });
  }
  return contents;
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json || '{}');
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const toDeclaration = (tool: ToolSpec): FunctionDeclaration => ({
  name: tool.name,
  description: tool.description,
  parametersJsonSchema: tool.parameters,
});

/**
 * SDK errors → ProviderError; 429, 5xx, network failures and broken or cut-off answers are
 * transient, other 4xx not. A refused key names the variable to check.
 */
export function mapGeminiError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || isAbort(error)) return new AbortedError();
  if (isApiError(error)) {
    const status = error.status;
    const transient = status === 429 || status >= 500;
    const body = errorBody(error);
    const retryAfterMs = retryAfterFromGoogleBody(body);
    const refused = keyRefusal(PROVIDER, status, status === 400 && invalidKey(body));
    const message = `${PROVIDER} answered ${status}: ${briefMessage(error, body)}`;
    return new ProviderError(PROVIDER, refused ? `${message} (${refused.hint})` : message, {
      status,
      transient,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(refused ? { userMessage: refused.userMessage, hint: refused.hint } : {}),
      cause: error,
    });
  }
  // fetch() rejects with TypeError 'fetch failed' when the host cannot be reached. A body
  // cut mid-stream ('terminated') is a broken answer, mapped below.
  if (error instanceof TypeError && /fetch failed|network/i.test(error.message)) {
    return new ProviderError(PROVIDER, `${PROVIDER} unreachable: ${error.message}`, {
      transient: true,
      cause: error,
    });
  }
  return mapBrokenResponse(PROVIDER, error) ?? error;
}

/** An error of the SDK's API (only once the SDK is loaded can it have thrown one). */
function isApiError(error: unknown): error is ApiError {
  return sdk !== undefined && error instanceof sdk.ApiError;
}

/**
 * Gemini answers a wrong key with 400 INVALID_ARGUMENT, not 401; its `ErrorInfo` detail
 * says `API_KEY_INVALID`.
 */
function invalidKey(body: unknown): boolean {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  return (
    Array.isArray(details) &&
    details.some((d) => (d as { reason?: unknown } | null)?.reason === 'API_KEY_INVALID')
  );
}

/** The SDK puts the whole JSON error body in the message. */
function errorBody(error: ApiError): unknown {
  try {
    return JSON.parse(error.message);
  } catch {
    return undefined; // not JSON
  }
}

/** The body's `error.message`, or the SDK's message as it is. */
function briefMessage(error: ApiError, body: unknown): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : error.message;
}
