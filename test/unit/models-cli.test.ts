import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelsCommand } from '../../src/cli/models.ts';
import { recordingIo } from '../support/cli-io.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-models-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `satchel models` in the test's working directory, with `env` (and no .env). */
async function models(env: Record<string, string> = {}) {
  const io = recordingIo({ SATCHEL_HOME: path.join(dir, 'data'), ...env }, dir);
  const code = await modelsCommand.run([], io);
  const lines = io.out().split('\n');
  const line = (key: string) =>
    lines
      .find((l) => l.trimStart().startsWith(`${key} `))
      ?.trim()
      .split(/\s{2,}/);
  return { code, out: io.out(), err: io.err(), line };
}

describe('satchel models', () => {
  it('prints the bundled catalog with its prices, images, context and source', async () => {
    const { code, out, line } = await models();
    expect(code).toBe(0);
    expect(out).toContain(`your file: ${path.join(dir, 'data', 'models.yaml')}`);
    expect(line('openai:gpt-4.1-mini')).toEqual([
      'openai:gpt-4.1-mini',
      '$0.4',
      '$0.1',
      '$1.6',
      '–',
      '–',
      '–',
      'yes',
      '1,047,576',
      'bundled',
    ]);
    expect(line('groq:whisper-large-v3-turbo')).toEqual([
      'groq:whisper-large-v3-turbo',
      '–',
      '–',
      '–',
      '$0.04',
      '–',
      '–',
      'no',
      '–',
      'bundled',
    ]);
    expect(line('openai:gpt-4o-mini-tts')).toEqual([
      'openai:gpt-4o-mini-tts',
      '–',
      '–',
      '–',
      '–',
      '–',
      '$15',
      'no',
      '–',
      'bundled',
    ]);
  });

  it("shows the owner's entries from SATCHEL_MODELS, and exits 1 naming a bad line", async () => {
    const file = path.join(dir, 'prices.yaml');
    writeFileSync(
      file,
      'openai:gpt-5-mini: { input: 0.25, cached_input: 0.025, output: 2, images: true }\nopenai:gpt-4.1-mini: { input: 0.5, output: 2 }\n',
    );
    const ok = await models({ SATCHEL_MODELS: file });
    expect(ok.code).toBe(0);
    expect(ok.line('openai:gpt-5-mini')).toEqual([
      'openai:gpt-5-mini',
      '$0.25',
      '$0.025',
      '$2',
      '–',
      '–',
      '–',
      'yes',
      '–',
      file,
    ]);
    // An override keeps the bundled fields it does not name.
    expect(ok.line('openai:gpt-4.1-mini')).toEqual([
      'openai:gpt-4.1-mini',
      '$0.5',
      '$0.5',
      '$2',
      '–',
      '–',
      '–',
      'yes',
      '1,047,576',
      file,
    ]);

    writeFileSync(file, 'openai:gpt-5-mini:\n  input: 0.25\n  output: free\n');
    const bad = await models({ SATCHEL_MODELS: file });
    expect(bad.code).toBe(1);
    expect(bad.out).toBe('');
    expect(bad.err).toBe(
      `satchel models: Invalid model catalog:\n- ${file} line 3: openai:gpt-5-mini.output must be a number (USD)\n`,
    );
  });
});
