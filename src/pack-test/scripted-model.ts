import type { ChatModel } from '../core/ports.ts';
import type { Step } from './test-file.ts';

/** A tool call the script made, and what the tool answered (once the model saw it). */
export interface ScriptedCall {
  id: string;
  tool: string;
  result: string | undefined;
}

/**
 * The chat model of a pack test: each call answers with the next scripted step — one tool
 * call, or the final answer — and reads the tools' results from the request it is given, as
 * a real model would.
 */
export function createScriptedModel() {
  let steps: Step[] = [];
  let calls: ScriptedCall[] = [];
  let seen: string[] = [];
  let newest: string[] = [];
  let next = 1;

  const model: ChatModel = {
    info: { provider: 'openai', model: 'pack-test-script', acceptsImages: false },
    async complete(request, { onText }) {
      // The system prompt too: a pack's persona, notes and the sections the core adds.
      seen.push([request.system, ...request.messages.map((m) => m.content)].join('\n'));
      newest.push(request.messages.findLast((m) => m.role === 'user')?.content ?? '');
      for (const message of request.messages) {
        const call = calls.find((c) => c.id === message.toolCallId);
        if (message.role === 'tool' && call) call.result = message.content;
      }
      const usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
      const step = steps.shift();
      if (step && 'tool' in step) {
        const id = `call_${next++}`;
        calls.push({ id, tool: step.tool, result: undefined });
        const toolCalls = [{ id, name: step.tool, arguments: JSON.stringify(step.args) }];
        return { text: '', toolCalls, usage };
      }
      const text = step?.answer ?? '(the script has no answer here)';
      onText?.(text);
      return { text, toolCalls: [], usage };
    },
  };

  return {
    model,
    /**
     * Starts a turn: these steps, no requests yet, and no calls but, when `keepWaiting`, the
     * earlier ones still waiting for their result (the `ask_user` a press answers).
     */
    script(turnSteps: readonly Step[], keepWaiting = false): void {
      steps = [...turnSteps];
      calls = keepWaiting ? calls.filter((c) => c.result === undefined) : [];
      seen = [];
      newest = [];
    },
    /** The calls made in this turn (and those it carried over). */
    calls: (): readonly ScriptedCall[] => calls,
    /**
     * The text of every message of each request in this turn (the clock line after the
     * conversation included; the system prompt before it is not).
     */
    seen: (): readonly string[] => seen,
    /** The newest user message of each request in this turn. */
    newest: (): readonly string[] => newest,
    /** Steps the turn ended without using. */
    unused: (): number => steps.length,
  };
}

export type ScriptedModel = ReturnType<typeof createScriptedModel>;
