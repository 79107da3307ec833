import { describe, expect, it } from 'vitest';
import { cleanTitle, MAX_MODEL_TITLE_CHARS } from '../../src/turn/conversation-title.ts';

describe('a title as the model wrote it', () => {
  it('keeps one line, without quotes, Markdown or a full stop', () => {
    expect(cleanTitle('"Planting in March."')).toBe('Planting in March');
    expect(cleanTitle('## **Trip  to Lisbon**\nA second line')).toBe('Trip to Lisbon');
    expect(cleanTitle('« Recettes d’hiver »')).toBe('Recettes d’hiver');
  });

  it('is cut at its length, and nothing usable is no title', () => {
    const long = cleanTitle('word '.repeat(40))!;
    expect(long).toHaveLength(MAX_MODEL_TITLE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(cleanTitle('  "" ')).toBeUndefined();
    expect(cleanTitle('')).toBeUndefined();
  });
});
