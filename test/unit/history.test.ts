import { describe, expect, it } from 'vitest';
import { compactionCut, estimateTokens, repairHistory } from '../../src/agent/history.ts';
import type { ChatMessage } from '../../src/core/types.ts';

const call = (id: string) => ({ id, name: 'db_query', arguments: '{}' });

describe('history repair', () => {
  it('drops tool results without their call and closes calls that never got a result', () => {
    const history: ChatMessage[] = [
      { role: 'tool', content: 'orphan', toolCallId: 'x' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      { role: 'tool', content: 'result a', toolCallId: 'a' },
      { role: 'user', content: 'stop that' },
      { role: 'assistant', content: 'ok' },
      { role: 'tool', content: 'late duplicate', toolCallId: 'a' },
    ];
    const repaired = repairHistory(history);
    expect(repaired.map((m) => [m.role, m.toolCallId ?? '', m.content.slice(0, 12)])).toEqual([
      ['user', '', 'hi'],
      ['assistant', '', ''],
      ['tool', 'a', 'result a'],
      ['tool', 'b', 'Error: no re'],
      ['user', '', 'stop that'],
      ['assistant', '', 'ok'],
    ]);
  });

  it("joins one turn's user messages (a batch, stored one per update) and no others", () => {
    const history = [
      { role: 'user' as const, content: 'failed turn', turnId: 't0' },
      { role: 'user' as const, content: 'first', turnId: 't1' },
      { role: 'user' as const, content: 'second', turnId: 't1' },
      { role: 'assistant' as const, content: 'both seen', turnId: 't1' },
      { role: 'user' as const, content: 'third', turnId: 't2' },
    ];
    expect(repairHistory(history)).toEqual([
      { role: 'user', content: 'failed turn' },
      { role: 'user', content: 'first\nsecond' },
      { role: 'assistant', content: 'both seen' },
      { role: 'user', content: 'third' },
    ]);
    expect(history[1]!.content).toBe('first');
  });

  it('leaves a valid history as it is', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'thinking', toolCalls: [call('a')] },
      { role: 'tool', content: 'r', toolCallId: 'a' },
      { role: 'assistant', content: 'answer' },
    ];
    expect(repairHistory(history)).toEqual(history);
  });
});

describe('history size', () => {
  it('cuts at a user message so a tool exchange is never split', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: '', toolCalls: [call('t')] },
      { role: 'tool', content: 'r', toolCallId: 't' },
      { role: 'assistant', content: 'd' },
    ];
    expect(compactionCut(history, 2)).toBe(2);
    expect(compactionCut(history, 5)).toBe(0);
    expect(estimateTokens([{ role: 'user', content: 'x'.repeat(392) }])).toBe(100);
  });
});
