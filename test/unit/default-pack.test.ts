/**
 * DEFAULT_PACK (SPEC §1): unset or `assistant` is the built-in default (missing: the picker,
 * with a warning), empty is the picker, another name must be a loaded pack (else the start
 * stops naming the variable); doctor says the same.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/core/errors.ts';
import type { Logger } from '../../src/core/ports.ts';
import { checkDefaultPack, checkSearchNeeded } from '../../src/ops/doctor-defaults.ts';
import type { Pack } from '../../src/packs/loader.ts';
import { resolveDefaultPack } from '../../src/routing/default-pack.ts';

const config = (value?: string) =>
  parseConfig({
    OPENAI_API_KEY: 'sk-test',
    ...(value === undefined ? {} : { DEFAULT_PACK: value }),
  });

function recordingLog() {
  const warnings: { fields: object; message: string }[] = [];
  const log = {
    warn: (fields: object, message: string) => warnings.push({ fields, message }),
  } as unknown as Logger;
  return { log, warnings };
}

const packs = (...names: string[]) => names.map((name) => ({ name }) as Pack);

describe('DEFAULT_PACK', () => {
  it('reads unset and `assistant` as the built-in default, empty as none, another name as the owner’s', () => {
    expect(config().defaultPack).toEqual({ name: 'assistant', explicit: false });
    expect(config('assistant').defaultPack).toEqual({ name: 'assistant', explicit: false });
    expect(config('').defaultPack).toEqual({ name: '', explicit: false });
    expect(config(' journal ').defaultPack).toEqual({ name: 'journal', explicit: true });
    expect(() => config('My Pack')).toThrow(/DEFAULT_PACK must be a pack name/);
  });

  it('resolves against the loaded packs: the pack, the picker, a warning, or a stop naming the variable', () => {
    const { log, warnings } = recordingLog();
    expect(resolveDefaultPack(config().defaultPack, ['assistant', 'vocab'], log)).toBe('assistant');
    expect(resolveDefaultPack(config('').defaultPack, ['assistant', 'vocab'], log)).toBeUndefined();
    expect(warnings).toEqual([]);

    expect(resolveDefaultPack(config().defaultPack, ['journal', 'vocab'], log)).toBeUndefined();
    expect(warnings).toEqual([
      {
        fields: { event: 'default_pack_missing', pack: 'assistant' },
        message: expect.stringContaining('a new conversation gets the pack picker'),
      },
    ]);
    expect(() =>
      resolveDefaultPack(config('habits').defaultPack, ['journal', 'vocab'], log),
    ).toThrow(ConfigError);
    expect(() => resolveDefaultPack(config('habits').defaultPack, ['journal'], log)).toThrow(
      'DEFAULT_PACK names "habits", which is not a loaded pack (loaded: journal)',
    );
  });

  it('doctor: ✓ for a loaded default, ! when the built-in one is missing, ✗ for a name of no pack', () => {
    expect(checkDefaultPack(config(), packs('assistant', 'vocab'))).toMatchObject({
      status: 'pass',
      title: 'default pack: assistant answers a new conversation (DEFAULT_PACK)',
    });
    expect(checkDefaultPack(config(''), packs('assistant', 'vocab'))).toMatchObject({
      status: 'pass',
      title: 'default pack: none (DEFAULT_PACK is empty): a new conversation gets the pack picker',
    });
    expect(checkDefaultPack(config(), packs('journal', 'vocab'))).toMatchObject({
      status: 'warn',
    });
    expect(checkDefaultPack(config('habits'), packs('journal', 'vocab'))).toMatchObject({
      status: 'fail',
      title: expect.stringContaining('DEFAULT_PACK names "habits"'),
    });
  });

  it('doctor names WEB_SEARCH_PROVIDER when a pack would research without a provider', () => {
    const searching = [
      { name: 'assistant', manifest: { tools: ['web_search', 'web_fetch'] } },
      { name: 'vocab', manifest: { tools: ['web_fetch'] } },
    ] as unknown as Pack[];
    expect(checkSearchNeeded(config(), searching)).toEqual([
      expect.objectContaining({
        status: 'warn',
        title: 'web search: off, WEB_SEARCH_PROVIDER is not set: assistant cannot research the web',
      }),
    ]);
    const withSearxng = parseConfig({
      OPENAI_API_KEY: 'sk-test',
      WEB_SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: 'http://127.0.0.1:8888',
    });
    expect(checkSearchNeeded(withSearxng, searching)).toEqual([]);
    expect(checkSearchNeeded(config(), searching.slice(1))).toEqual([]);
  });
});
