import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPackAddCommand } from '../../src/cli/pack-add.ts';
import type { NpmFetch } from '../../src/packs/install.ts';
import { recordingIo } from '../support/cli-io.ts';
import { ALLOWED_USER, harnessPerTest, settled } from '../support/harness.ts';
import { npmPackOf, packSource } from '../support/pack-sources.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const h = harnessPerTest();
const tempDir = tempDirs('satchel-pack-add-e2e-');

describe('packs installed with satchel pack add', () => {
  it('are offered in the picker: one from a folder, one from a .tgz, one from npm', async () => {
    const work = tempDir();
    const home = path.join(work, 'home');
    const gammaTgz = npmPackOf(
      packSource(work, 'alpha', { name: 'gamma', display: 'Gamma' }),
      work,
    );
    const fetchNpm: NpmFetch = async (_spec, dir) => {
      const copy = path.join(dir, path.basename(gammaTgz));
      writeFileSync(copy, readFileSync(gammaTgz));
      return copy;
    };
    const add = createPackAddCommand(fetchNpm);
    const sources = [
      packSource(work, 'alpha'),
      npmPackOf(packSource(work, 'beta'), work),
      'npm:satchel-pack-gamma',
    ];
    for (const source of sources) {
      const io = recordingIo({ SATCHEL_HOME: home, SATCHEL_PACKS: path.join(work, 'none') }, work);
      expect(await add.run([source, '--yes'], io)).toBe(0);
    }

    await h.start({ SATCHEL_HOME: home });
    h.model.enqueue({ text: 'Gamma here.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    const picker = await h.tg.waitForCall('sendMessage');
    expect(picker.params.reply_markup.inline_keyboard).toEqual([
      [{ text: 'Alpha Garden', callback_data: 'pack:alpha' }],
      [{ text: 'Beta Books', callback_data: 'pack:beta' }],
      [{ text: 'Gamma', callback_data: 'pack:gamma' }],
    ]);
    h.tg.callback({
      userId: ALLOWED_USER,
      data: 'pack:gamma',
      messageId: picker.result.message_id,
    });
    await settled(h, 2);
    expect(h.tg.calls('sendMessage').at(-1)!.params.text).toContain('Gamma here.');
  });
});
