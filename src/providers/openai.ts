import OpenAI from 'openai';
import { AbortedError, ProviderError, ProviderTimeoutError } from '../core/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from '../core/ports.ts';
import type { ChatMessage } from '../core/types.ts';
import type { ChatModelOptions } from './chat-options.ts';
import { httpFetch } from './http-fetch.ts';
import { keyRefusal } from './key-hint.ts';
import type { ProviderAccess } from './registry.ts';
import { mapBrokenResponse, retryAfterFromHeaders } from './response-errors.ts';
import { assembleAnswer, streamedChatModel } from './streamed-model.ts';
import { toolsForProvider } from './tool-schemas.ts';

export interface OpenAiOptions extends ChatModelOptions {
  /** The name the ledger uses, for another OpenAI-compatible API (default 'openai'). */
  provider?: string;
}

/**
 * The SDK's client for OpenAI or a compatible server: no retries of its own (satchel's retry
 * and failover decide), satchel's fetch, and no console output.
 */
export function openAiClient(access: ProviderAccess): OpenAI {
  return new OpenAI(sdkClientOptions(access));
}

/** A chat model over the OpenAI chat-completions API (OpenAI and compatible servers). */
export function createOpenAiChatModel(options: OpenAiOptions): ChatModel {
  const client = openAiClient(options);
  const provider = options.provider ?? 'openai';
  return completionsChatModel(
    options,
    provider,
    (body, signal) =>
      client.chat.completions.create(
        { ...body, stream_options: { include_usage: true } },
        { signal },
      ),
    (error, signal) => mapOpenAiError(provider, error, signal),
  );
}

/** The client settings of both chat-completions SDKs (openai, groq-sdk). */
export function sdkClientOptions(options: Pick<ChatModelOptions, 'apiKey' | 'baseUrl'>) {
  return {
    apiKey: options.apiKey ?? 'not-needed',
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    fetch: httpFetch,
    // The SDK would print an unparsable chunk (the user's text) to the console; the mapped
    // error is logged instead.
    logLevel: 'off' as const,
  };
}

/** The body of a streamed chat-completions request, as both SDKs take it. */
export interface CompletionsBody {
  model: string;
  tools?: WireTool[];
  messages: WireMessage[];
  stream: true;
}

/**
 * A chat model over a chat-completions API, whichever SDK speaks it: `send` posts the body
 * with that SDK's client, `mapError` maps that SDK's errors. Usage arrives in the last
 * chunk's `usage` (or Groq's `x_groq.usage`); the collector reads both.
 */
export function completionsChatModel(
  options: ChatModelOptions,
  provider: string,
  send: (body: CompletionsBody, signal: AbortSignal) => Promise<AsyncIterable<StreamedChunk>>,
  mapError: (error: unknown, signal: AbortSignal) => unknown,
): ChatModel {
  return streamedChatModel(
    options,
    provider,
    async (request, { signal, progress, onText, refused }) => {
      const tools = toWireTools(request, refused);
      const stream = await send(
        {
          model: options.model,
          // Tools before the messages, as the provider reads the prompt: the body then grows
          // only at its end from one request to the next (prompt caching, SPEC §14).
          ...(tools.length ? { tools } : {}),
          messages: toWireMessages(request),
          stream: true,
        },
        signal,
      );
      return collectChatStream(stream, progress, onText);
    },
    mapError,
  );
}

/** A tool call fragment of a streamed chunk, as OpenAI-compatible APIs send it. */
export interface StreamedToolCallDelta {
  index: number;
  id?: string | undefined;
  function?: { name?: string | undefined; arguments?: string | undefined } | undefined;
}

/** Token counts in the OpenAI shape (Groq uses it too). */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number | undefined } | null | undefined;
  /** USD, from an OpenAI-compatible router that reports what the call cost (OpenRouter). */
  cost?: number | null | undefined;
}

/**
 * A streamed chat-completion chunk, typed structurally so that the openai and groq-sdk chunk
 * types both fit. Groq reports usage in the final chunk's `x_groq.usage`.
 */
export interface StreamedChunk {
  choices: {
    finish_reason?: string | null | undefined;
    delta?:
      | {
          content?: string | null | undefined;
          tool_calls?: StreamedToolCallDelta[] | null | undefined;
        }
      | undefined;
  }[];
  usage?: WireUsage | null | undefined;
  x_groq?: { usage?: WireUsage | null | undefined } | null | undefined;
}

/**
 * Assembles a streamed chat completion: text deltas (to `onText`), tool calls grown from their
 * fragments, and usage. A stream that ends without a finish reason throws IncompleteResponse.
 */
export function collectChatStream(
  stream: AsyncIterable<StreamedChunk>,
  progress: () => void,
  onText: ((delta: string) => void) | undefined,
): Promise<ChatResponse> {
  return assembleAnswer(stream, progress, onText, (chunk, draft) => {
    if (chunk.choices[0]?.finish_reason) draft.finished = true;
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) draft.addText(delta.content);
    for (const part of delta?.tool_calls ?? []) {
      const call = draft.calls[part.index] ?? { id: '', name: '', arguments: '' };
      draft.calls[part.index] = call;
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) {
      draft.usage = {
        inputTokens: usage.prompt_tokens,
        cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
        outputTokens: usage.completion_tokens,
        ...(typeof usage.cost === 'number' && usage.cost >= 0 ? { costUsd: usage.cost } : {}),
      };
    }
  });
}

/** A chat message in the OpenAI wire shape; both the openai and groq-sdk params accept it. */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireContentPart[] }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }[];
    }
  | { role: 'tool'; content: string; tool_call_id: string };

/** A part of a user message that carries images: its text, or one image as a data URL. */
export type WireContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

/** A function tool in the OpenAI wire shape. */
export interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The system prompt and the conversation as OpenAI-shaped messages. */
export function toWireMessages(request: ChatRequest): WireMessage[] {
  return [{ role: 'system', content: request.system }, ...request.messages.map(toWireMessage)];
}

function toWireMessage(message: ChatMessage): WireMessage {
  if (message.role === 'tool')
    return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
  if (message.role === 'assistant') {
    return {
      role: 'assistant',
      content: message.content,
      ...(message.toolCalls?.length
        ? {
            tool_calls: message.toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    };
  }
  if (message.role === 'system') return { role: 'system', content: message.content };
  return { role: 'user', content: userContent(message) };
}

/**
 * A user message's content: a plain string, or — when it carries images — its text followed
 * by one `image_url` part per image, each a base64 data URL.
 */
function userContent(message: ChatMessage): string | WireContentPart[] {
  if (!message.images?.length) return message.content;
  const text: WireContentPart[] = message.content ? [{ type: 'text', text: message.content }] : [];
  return [
    ...text,
    ...message.images.map((image) => ({
      type: 'image_url' as const,
      image_url: { url: `data:${image.mimeType};base64,${image.data}` },
    })),
  ];
}

/**
 * The request's tools as OpenAI-shaped function tools, without those whose schema cannot be
 * sent (reported to `refused`); empty when none is left.
 */
export function toWireTools(
  request: ChatRequest,
  refused: (tool: string, reason: string) => void,
): WireTool[] {
  return toolsForProvider(request.tools, 'openai', refused).map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * SDK errors → ProviderError; 429, 5xx, timeouts, network failures and broken or cut-off
 * responses are transient. A refused key (401, 403) names the variable to check.
 */
export function mapOpenAiError(provider: string, error: unknown, signal: AbortSignal): unknown {
  return mapSdkError(provider, error, signal, OpenAI);
}

type ErrorClass<T = Error> = abstract new (...args: never[]) => T;

/** The error classes of a Stainless-generated SDK (openai, groq-sdk). */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass<Error & { status: number | undefined; headers: Headers | undefined }>;
}

/** mapOpenAiError for any SDK with the same error classes (groq-sdk). */
export function mapSdkError(
  provider: string,
  error: unknown,
  signal: AbortSignal,
  sdk: SdkErrorClasses,
): unknown {
  if (signal.aborted || error instanceof sdk.APIUserAbortError) return new AbortedError();
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderTimeoutError(provider, `${provider} timed out`, error);
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ProviderError(provider, `${provider} unreachable: ${error.message}`, {
      transient: true,
      cause: error,
    });
  }
  if (error instanceof sdk.APIError) {
    const status = error.status;
    const transient = status === undefined || status === 429 || status >= 500;
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    const refused = keyRefusal(provider, status);
    const message = `${provider} answered ${status}: ${error.message}`;
    return new ProviderError(provider, refused ? `${message} (${refused.hint})` : message, {
      ...(status === undefined ? {} : { status }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(refused ? { userMessage: refused.userMessage, hint: refused.hint } : {}),
      transient,
      cause: error,
    });
  }
  return mapBrokenResponse(provider, error) ?? error;
}
