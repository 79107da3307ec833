import { describe, expect, it } from 'vitest';
import { lintEnvText } from '../../src/config/env-lint.ts';
import { edgeVariables } from '../../src/edges.ts';

describe('.env mistakes', () => {
  it('names unknown variables with the nearest known one, and lines that are not NAME=value', () => {
    const text = [
      '# model',
      'OPENAI_APIKEY=sk-1',
      'OPENAI_API_KEY sk-2',
      'TELEGRAM_BOT_TOKN=1:a',
      'WHATEVER_ELSE=1',
      'just words',
    ].join('\n');
    expect(lintEnvText(text, edgeVariables())).toEqual([
      {
        line: 2,
        message: 'OPENAI_APIKEY is not a variable satchel reads (did you mean `OPENAI_API_KEY`?)',
      },
      {
        line: 3,
        message:
          'not NAME=value, so it is ignored (and the line after it may be misread): write OPENAI_API_KEY=<value>',
      },
      {
        line: 4,
        message:
          'TELEGRAM_BOT_TOKN is not a variable satchel reads (did you mean `TELEGRAM_BOT_TOKEN`?)',
      },
      { line: 5, message: 'WHATEVER_ELSE is not a variable satchel reads' },
      {
        line: 6,
        message: 'not NAME=value, so it is ignored (and the line after it may be misread)',
      },
    ]);
  });

  it('accepts pack settings, Node variables, export, blank lines, comments and quoted multi-line values', () => {
    const text = [
      'export OPENAI_API_KEY=sk-1',
      '',
      '  # indented comment',
      'SATCHEL_PACK_VAULT_API_TOKEN=t',
      'NODE_ENV=production',
      'NO_COLOR=1',
      'SATCHEL_PACKS="./packs',
      'more words inside the quotes"',
      'LLM_MODEL = gpt-4.1-mini',
    ].join('\r\n');
    expect(lintEnvText(text, edgeVariables())).toEqual([]);
  });
});
