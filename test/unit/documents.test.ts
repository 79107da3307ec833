import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES, safeName, saveUnique } from '../../src/inbound/documents.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('satchel-docs-');

const bytes = (text: string) => Buffer.byteLength(text);

describe('the name a document is saved under', () => {
  it.each([
    ['line and paragraph separators', 'a\u2028b\u2029c.txt', 'abc.txt'],
    ['a bidi override that fakes the extension', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['bidi isolates and marks', '\u2066x\u2067y\u2068z\u2069\u200f.md', 'xyz.md'],
    ['C0 controls, DEL and C1 controls', 'a\tb\nc\r\0d\u007f\u0085\u009b.csv', 'abcd.csv'],
    ['zero-width characters, the BOM and a soft hyphen', '\ufeffz\u200bw\u00ad.txt', 'zw.txt'],
    ['a lone surrogate', 'half\ud800.txt', 'half.txt'],
    ['directories, either separator', '../../etc/passwd', 'passwd'],
    ['a Windows path', 'C:\\Users\\me\\notes.txt', 'notes.txt'],
    ['nothing left', '\u202E\u2028', 'file'],
    ['dots only', '..', 'file'],
  ])('drops %s', (_what, wanted, saved) => {
    expect(safeName(wanted)).toBe(saved);
  });

  it('saves a secret-shaped name redacted, the extension kept', () => {
    const dir = tempDir();
    const token = `123456789:AA${'h7_Q-x2'.repeat(4)}abcde`; // 35 after the colon
    expect(saveUnique(dir, `${token}.txt`, Buffer.from('one'))).toBe('[redacted].txt');
    // A zero-width space inside the token is removed first, so it cannot hide it.
    const hidden = `key sk-proj-${'Ab3'.repeat(4)}\u200b${'Cd4'.repeat(4)}.json`;
    expect(saveUnique(dir, hidden, Buffer.from('two'))).toBe('key [redacted].json');
    expect(readdirSync(dir).sort()).toEqual(['[redacted].txt', 'key [redacted].json']);
    expect(readdirSync(dir).join()).not.toContain('123456789');
  });

  it('keeps every other character: accents, CJK, emoji, spaces', () => {
    expect(safeName('Ärger über 🌿 語 (draft).md')).toBe('Ärger über 🌿 語 (draft).md');
  });

  it('is at most 255 bytes of UTF-8, cut between characters, keeping the extension', () => {
    const cjk = safeName(`${'語'.repeat(130)}.pdf`); // 394 bytes
    expect(cjk).toBe(`${'語'.repeat(83)}.pdf`);
    const emoji = safeName(`${'🌿'.repeat(100)}.txt`);
    expect(emoji).toBe(`${'🌿'.repeat(62)}.txt`);
    // A letter and its combining accent stay together.
    const accents = safeName(`${'e\u0301'.repeat(100)}.md`);
    expect(accents).toBe(`${'e\u0301'.repeat(84)}.md`);
    const oddExtension = safeName(`${'a'.repeat(300)}.${'b'.repeat(300)}`);
    expect(oddExtension).toBe('a'.repeat(255));
    for (const name of [cjk, emoji, accents, oddExtension])
      expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  });

  it('saves a 130-character CJK name, twice, without ENAMETOOLONG', () => {
    const dir = tempDir();
    const wanted = `${'報告書'.repeat(43)}報.pdf`;
    const first = saveUnique(dir, wanted, Buffer.from('one'));
    const second = saveUnique(dir, wanted, Buffer.from('two'));
    expect(first).toBe(`${'報告書'.repeat(27)}報告.pdf`); // 253 bytes
    expect(second).toBe(`${'報告書'.repeat(27)}報 (2).pdf`); // 254 bytes
    expect(bytes(second)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(readdirSync(dir).sort()).toEqual([first, second].sort());
    expect(readFileSync(path.join(dir, second), 'utf8')).toBe('two');
  });
});
