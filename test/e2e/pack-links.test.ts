import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemText } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const h = harnessPerTest();
const temp = tempDirs('satchel-pack-links-e2e-');

/** SATCHEL_PACKS with fixture alpha whose `file` is a link to `target` outside the pack. */
function packsWithLink(file: string, target: string): string {
  const packs = fixturePacks(['alpha']);
  rmSync(path.join(packs, 'alpha', file), { recursive: true, force: true });
  symlinkSync(target, path.join(packs, 'alpha', file));
  return packs;
}

describe('a pack in SATCHEL_PACKS with a link that leaves its folder', () => {
  it.each([
    ['SOUL.md', 'a file'],
    [path.join('skills', 'alpha_two'), 'a skill folder'],
  ])(
    '%s linked to %s outside: none of its text reaches the model; the pack is skipped',
    async (file) => {
      const outside = temp();
      writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE-PRIVATE-TEXT');
      mkdirSync(path.join(outside, 'skill'));
      writeFileSync(
        path.join(outside, 'skill', 'SKILL.md'),
        '---\nname: alpha_two\ndescription: OUTSIDE-PRIVATE-TEXT\n---\nOUTSIDE-PRIVATE-TEXT\n',
      );
      const target = file === 'SOUL.md' ? 'secret.txt' : 'skill';
      await h.start({ SATCHEL_PACKS: packsWithLink(file, path.join(outside, target)) });
      h.model.enqueue({ text: 'Hello.' });
      h.tg.text({ userId: ALLOWED_USER, text: 'hi' });
      await settled(h, 1);
      const [request] = h.model.chatRequests();
      expect(request).toBeDefined();
      expect(JSON.stringify(request!.body)).not.toContain('OUTSIDE-PRIVATE-TEXT');
      expect(systemText(request!)).not.toContain('Alpha Garden');
      const [invalid] = h.logs('pack_invalid');
      expect(JSON.stringify(invalid)).toContain(
        'is a link that leads outside the pack folder; satchel does not read it',
      );
    },
  );
});
