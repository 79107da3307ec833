import OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { AbortedError, ProviderError } from '../core/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse, ModelInfo } from '../core/ports.ts';
import type { ChatMessage, ToolCall } from '../core/types.ts';
import { idleTimeout } from './idle-timeout.ts';

export interface OpenAiOptions {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  model: string;
  timeoutMs: number;
  /** The name the ledger uses; 'groq' reuses this adapter for an OpenAI-compatible API. */
  provider?: string;
  acceptsImages?: boolean;
}

/** A chat model over the OpenAI chat-completions API (OpenAI and compatible servers). */
export function createOpenAiChatModel(options: OpenAiOptions): ChatModel {
  const client = new OpenAI({
    apiKey: options.apiKey ?? 'not-needed',
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
  });
  const info: ModelInfo = {
    provider: options.provider ?? 'openai',
    model: options.model,
    acceptsImages: options.acceptsImages ?? false,
  };

  return {
    info,
    async complete(request, { signal, onText }) {
      const deadline = idleTimeout(options.timeoutMs, signal);
      try {
        const stream = await client.chat.completions.create(
          {
            model: options.model,
            messages: toOpenAiMessages(request),
            ...(request.tools?.length ? { tools: toOpenAiTools(request) } : {}),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal: deadline.signal },
        );
        const response = await collect(stream, deadline.touch, onText);
        // An aborted stream may simply end instead of throwing: never take it as an answer.
        if (deadline.signal.aborted) throw deadline.signal.reason;
        return response;
      } catch (error) {
        throw deadline.timeoutError(info.provider) ?? mapOpenAiError(info.provider, error, signal);
      } finally {
        deadline.dispose();
      }
    },
  };
}

async function collect(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  progress: () => void,
  onText: ((delta: string) => void) | undefined,
): Promise<ChatResponse> {
  let text = '';
  const calls: ToolCall[] = [];
  const response: ChatResponse = {
    text: '',
    toolCalls: calls,
    usage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
  };
  for await (const chunk of stream) {
    progress();
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) {
      text += delta.content;
      onText?.(delta.content);
    }
    for (const part of delta?.tool_calls ?? []) {
      const call = calls[part.index] ?? { id: '', name: '', arguments: '' };
      calls[part.index] = call;
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
    if (chunk.usage) {
      response.usage = {
        inputTokens: chunk.usage.prompt_tokens,
        cachedInputTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens,
      };
    }
  }
  response.text = text;
  return response;
}

function toOpenAiMessages(request: ChatRequest): ChatCompletionMessageParam[] {
  return [{ role: 'system', content: request.system }, ...request.messages.map(toOpenAiMessage)];
}

function toOpenAiMessage(message: ChatMessage): ChatCompletionMessageParam {
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
  return { role: message.role, content: message.content };
}

function toOpenAiTools(request: ChatRequest): ChatCompletionTool[] {
  return (request.tools ?? []).map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** SDK errors → ProviderError; 429, 5xx, timeouts and network failures are transient. */
export function mapOpenAiError(provider: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof OpenAI.APIUserAbortError) return new AbortedError();
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError(provider, `${provider} timed out`, { transient: true, cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ProviderError(provider, `${provider} unreachable: ${error.message}`, {
      transient: true,
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    const transient = status === undefined || status === 429 || status >= 500;
    return new ProviderError(provider, `${provider} answered ${status}: ${error.message}`, {
      ...(status === undefined ? {} : { status }),
      transient,
      cause: error,
    });
  }
  return error;
}
