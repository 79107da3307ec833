import { describe, expect, it } from 'vitest';
import { assignToolNames, PROVIDER_TOOL_NAME, providerToolName } from '../../src/mcp/tool-names.ts';

describe('MCP tool names for providers', () => {
  it('joins server and tool with __ and keeps a valid name as it is', () => {
    expect(providerToolName('notes', 'search-notes')).toBe('notes__search-notes');
  });

  it('replaces other characters and fixes a leading digit', () => {
    expect(providerToolName('my.notes', 'list files/v2')).toBe('my_notes__list_files_v2');
    expect(providerToolName('9server', 'x')).toBe('_9server__x');
    expect(providerToolName('ünï', 'tööl')).toMatch(PROVIDER_TOOL_NAME);
  });

  it('shortens a long name with a hash of the full name, so two long names stay apart', () => {
    const a = providerToolName('server', `${'a'.repeat(80)}_one`);
    const b = providerToolName('server', `${'a'.repeat(80)}_two`);
    expect(a).toHaveLength(64);
    expect(a).toMatch(PROVIDER_TOOL_NAME);
    expect(b).toMatch(PROVIDER_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
  });

  it('refuses a tool whose name a core tool or another MCP tool already has', () => {
    const { named, clashes } = assignToolNames(
      [
        { server: 'a', tool: 'find.x' },
        { server: 'a', tool: 'find_x' },
        { server: 'b', tool: 'ok' },
      ],
      ['memory', 'b__ok'],
    );
    expect(named.map((t) => t.name)).toEqual(['a__find_x']);
    expect(clashes).toEqual([
      { tool: { server: 'a', tool: 'find_x' }, name: 'a__find_x', with: 'a/find.x' },
      { tool: { server: 'b', tool: 'ok' }, name: 'b__ok', with: 'core tool b__ok' },
    ]);
  });
});
