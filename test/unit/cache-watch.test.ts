/**
 * `prompt_cache_break` (SPEC §14): each part of a request changed in turn — a tool added or
 * changed, the system prompt, an old message — logs one line naming it and where; a normal
 * next turn, a compaction and a change of the pack's own prompt log none.
 */
import { describe, expect, it } from 'vitest';
import { createCacheWatch, type PromptEpoch } from '../../src/agent/cache-watch.ts';
import type { ChatRequest, Logger, ToolSpec } from '../../src/core/ports.ts';
import type { ChatMessage } from '../../src/core/types.ts';

function recordingLog() {
  const lines: Record<string, unknown>[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: (fields: object) => void lines.push(fields as Record<string, unknown>),
    error: () => {},
    child: () => log,
  };
  return { log, lines };
}

const tool = (name: string, note = ''): ToolSpec => ({
  name,
  description: `The ${name} tool. ${'Explains itself at length. '.repeat(10)}${note}`,
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
});
const TOOLS = [tool('memory'), tool('db_query'), tool('schedule')];
const SYSTEM = `You are satchel.\n${'A rule that never changes. '.repeat(40)}`;
/** Ten turns of a conversation: a user message and an answer each, a few hundred characters. */
const HISTORY: ChatMessage[] = Array.from({ length: 10 }, (_, i) => [
  {
    role: 'user' as const,
    content: `[Sent: 2026-11-23 Monday 10:0${i} UTC]\n${'question '.repeat(40)}${i}`,
  },
  { role: 'assistant' as const, content: `${'answer '.repeat(40)}${i}` },
]).flat();

const EPOCH: PromptEpoch = { summaryUpto: null, packPrompt: '# Active pack: Alpha' };

function watch() {
  const { log, lines } = recordingLog();
  const cache = createCacheWatch(log);
  const send = (request: ChatRequest, epoch: PromptEpoch = EPOCH) =>
    cache.observe('session-1', request, { ...epoch, pack: 'alpha', turnId: 't' });
  send({ tools: TOOLS, system: SYSTEM, messages: HISTORY });
  return { send, breaks: () => lines.filter((l) => l.event === 'prompt_cache_break') };
}

const nextTurn: ChatMessage[] = [...HISTORY, { role: 'user', content: 'and now?' }];

describe('prompt_cache_break', () => {
  it('stays quiet for a normal next turn and for a tool round within a turn', () => {
    const { send, breaks } = watch();
    send({ tools: TOOLS, system: SYSTEM, messages: nextTurn });
    send({
      tools: TOOLS,
      system: SYSTEM,
      messages: [
        ...nextTurn,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'memory', arguments: '{}' }],
        },
        { role: 'tool', content: 'saved', toolCallId: 'c1' },
      ],
    });
    expect(breaks()).toEqual([]);
  });

  it('names a tool added at the end, and a tool changed, by its index', () => {
    const added = watch();
    added.send({ tools: [...TOOLS, tool('web_fetch')], system: SYSTEM, messages: nextTurn });
    expect(added.breaks()).toMatchObject([{ part: 'tools', at: 3, pack: 'alpha' }]);

    const changed = watch();
    const tools = [TOOLS[0]!, tool('db_query', 'Now also joins.'), TOOLS[2]!];
    changed.send({ tools, system: SYSTEM, messages: nextTurn });
    expect(changed.breaks()).toMatchObject([{ part: 'tools', at: 1 }]);
    expect(changed.breaks()).toHaveLength(1);
  });

  it('names the system prompt and the character it first differs at', () => {
    const { send, breaks } = watch();
    const system = `${SYSTEM.slice(0, 17)}Now: 10:05. ${SYSTEM.slice(17)}`;
    send({ tools: TOOLS, system, messages: nextTurn });
    expect(breaks()).toMatchObject([
      { event: 'prompt_cache_break', part: 'system', at: 17, sessionId: 'session-1' },
    ]);
    expect(breaks()[0]!.prefixShare).toBeLessThan(0.9);
  });

  it('names an old message edited by its index; an edit near the end repeats 90 % and is no break', () => {
    const { send, breaks } = watch();
    const edited = nextTurn.map((m, i) => (i === 2 ? { ...m, content: `${m.content}!` } : m));
    send({ tools: TOOLS, system: SYSTEM, messages: edited });
    expect(breaks()).toMatchObject([{ part: 'messages', at: 2 }]);

    const late = watch();
    const lastEdited = nextTurn.map((m, i) => (i === 19 ? { ...m, content: 'shorter' } : m));
    late.send({ tools: TOOLS, system: SYSTEM, messages: lastEdited });
    expect(late.breaks()).toEqual([]);
  });

  it('stays quiet when the session was compacted or the pack’s own prompt changed', () => {
    const { send, breaks } = watch();
    const summarized = `${SYSTEM}\n\n# Earlier in this session (summary)\n- the user asked`;
    send(
      { tools: TOOLS, system: summarized, messages: HISTORY.slice(16) },
      { ...EPOCH, summaryUpto: 16 },
    );
    const withMemory = `${SYSTEM.slice(0, 40)}# MEMORY.md\n- likes ferns\n${SYSTEM.slice(40)}`;
    send(
      { tools: TOOLS, system: withMemory, messages: HISTORY.slice(16) },
      { summaryUpto: 16, packPrompt: '# Active pack: Alpha\n# MEMORY.md\n- likes ferns' },
    );
    expect(breaks()).toEqual([]);
    // From the new prompt on, a change is compared again.
    send(
      { tools: TOOLS.slice(0, 1), system: withMemory, messages: HISTORY.slice(16) },
      { summaryUpto: 16, packPrompt: '# Active pack: Alpha\n# MEMORY.md\n- likes ferns' },
    );
    expect(breaks()).toMatchObject([{ part: 'tools', at: 1 }]);
  });

  it('compares each session with its own previous request only', () => {
    const { log, lines } = recordingLog();
    const cache = createCacheWatch(log);
    const context = { ...EPOCH, pack: 'alpha', turnId: 't' };
    cache.observe('a', { tools: TOOLS, system: SYSTEM, messages: HISTORY }, context);
    cache.observe('b', { tools: [], system: 'other', messages: [] }, context);
    cache.observe('a', { tools: TOOLS, system: SYSTEM, messages: nextTurn }, context);
    expect(lines).toEqual([]);
  });
});
