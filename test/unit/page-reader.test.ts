import { afterEach, describe, expect, it } from 'vitest';
import { createPageReader, type PageReader } from '../../src/tools/web/page-reader.ts';
import { linksPage, nestedPage } from '../support/hostile-pages.ts';

const readers: PageReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
});
function reader(options: Parameters<typeof createPageReader>[0] = {}) {
  const r = createPageReader(options);
  readers.push(r);
  return r;
}

const ARTICLE = `<html><head><title>Pears</title></head><body><nav>MENU</nav><article><h1>Pears</h1><p>${'Pears ripen off the tree, from the inside out. '.repeat(10)}</p></article></body></html>`;

describe('the page reader (a worker thread)', () => {
  it('reads pages nested far too deep for a DOM as plain text, at any depth', async () => {
    const r = reader();
    for (const depth of [150, 2000, 100_000]) {
      const page = await r.read(nestedPage(depth));
      expect(page).toEqual({ title: 'Deep', text: 'DEEP-TEXT at the bottom' });
    }
  });

  it('a page past the time limit is an error result', async () => {
    const r = reader({ timeoutMs: 300 });
    await expect(r.read(linksPage(5_000_000))).rejects.toThrow(
      'the page is too complex to read (its text was not found within 0.3 s)',
    );
  });

  it('a page past the memory limit is an error result', async () => {
    const r = reader({ maxHeapMb: 24, timeoutMs: 60_000 });
    await expect(r.read(linksPage(5_000_000))).rejects.toThrow(
      'the page is too large to read (it needed more than 24 MB)',
    );
    // The worker that ran out is replaced: the next page is read.
    const page = await r.read(ARTICLE);
    expect(page.title).toBe('Pears');
    expect(page.text).toContain('Pears ripen off the tree');
    expect(page.text).not.toContain('MENU');
  }, 60_000);

  it('a turn stopped while its page is read stops the reading with its reason', async () => {
    const stop = new AbortController();
    const reading = reader().read(linksPage(5_000_000), stop.signal);
    stop.abort(new Error('stopped by /stop'));
    await expect(reading).rejects.toThrow('stopped by /stop');
  });
});
