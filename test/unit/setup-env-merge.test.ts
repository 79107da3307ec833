import { describe, expect, it } from 'vitest';
import { describeChanges, mergeEnv } from '../../src/setup/env-merge.ts';

const OLD = [
  '# my settings',
  'LLM_PROVIDER=openai',
  'OPENAI_API_KEY="sk-old"',
  'LLM_MODEL=gpt-4.1-mini',
  '',
  '# added by hand',
  'SATCHEL_TIMEZONE=Europe/Berlin',
  'LLM_MODEL=gpt-4o',
  'WEB_SEARCH_PROVIDER=brave',
  '',
].join('\n');

describe('setup merging into an existing .env', () => {
  it('replaces answered lines where they stand, drops a second line of the same name and a removed one, appends new ones, keeps the rest', () => {
    const answers = new Map<string, string | undefined>([
      ['LLM_PROVIDER', 'openai'],
      ['OPENAI_API_KEY', 'sk-old'],
      ['LLM_MODEL', 'qwen2.5:7b'],
      ['WEB_SEARCH_PROVIDER', undefined],
      ['STT_PROVIDER', 'off'],
    ]);
    const { text, changes, kept } = mergeEnv(OLD, answers);
    expect(text).toBe(
      [
        '# my settings',
        'LLM_PROVIDER=openai',
        // Unchanged: the owner's quotes stay.
        'OPENAI_API_KEY="sk-old"',
        'LLM_MODEL=qwen2.5:7b',
        '',
        '# added by hand',
        'SATCHEL_TIMEZONE=Europe/Berlin',
        'STT_PROVIDER=off',
        '',
      ].join('\n'),
    );
    expect(changes).toEqual([
      { name: 'LLM_MODEL', kind: 'changed', value: 'qwen2.5:7b' },
      { name: 'WEB_SEARCH_PROVIDER', kind: 'removed' },
      { name: 'STT_PROVIDER', kind: 'added', value: 'off' },
    ]);
    expect(kept).toEqual(['SATCHEL_TIMEZONE']);
    expect(describeChanges('.env', changes, kept)).toBe(
      [
        'Changes to .env:',
        '  ~ LLM_MODEL=qwen2.5:7b',
        '  - WEB_SEARCH_PROVIDER (removed)',
        '  + STT_PROVIDER=off',
        '  kept as they were: SATCHEL_TIMEZONE',
      ].join('\n'),
    );
  });

  it('with two lines of one name, the value that counts (the last) is the one kept', () => {
    const { text, changes } = mergeEnv(OLD, new Map([['LLM_MODEL', 'gpt-4o']]));
    expect(text).toContain('LLM_MODEL=gpt-4o\n');
    expect(text).not.toContain('gpt-4.1-mini');
    expect(changes).toEqual([]);
  });

  it('never shows a secret it writes, and says when nothing changes', () => {
    const { changes } = mergeEnv('A=1\n', new Map([['BRAVE_API_KEY', 'bk-secret']]));
    expect(describeChanges('.env', changes, [])).toBe(
      'Changes to .env:\n  + BRAVE_API_KEY=(new value, not shown)',
    );
    expect(describeChanges('.env', [], ['A'])).toBe('.env: nothing changes.');
  });

  it('a value with a space or a # is single-quoted, as Node reads it back', () => {
    const { text } = mergeEnv(undefined, new Map([['SATCHEL_TIMEZONE', 'a b#c']]));
    expect(text).toContain("SATCHEL_TIMEZONE='a b#c'\n");
  });
});
