/**
 * Pack settings (SPEC §15): read from SATCHEL_PACK_<PACK>_<NAME>; a pack missing a required
 * one is skipped with a message naming the variable; a secret never reaches the model, the stored
 * conversation or a log line.
 */
import { describe, expect, it } from 'vitest';
import { userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const SETTINGS = `settings:
  - name: api_token
    description: The notes service's API token.
    secret: true
    required: true
  - name: city
    description: Where the garden is.
`;
const SECRET = 'plant-secret-7f3a9c1d2e';
const h = harnessPerTest();

describe('pack settings', () => {
  it('skips a pack whose required setting is unset, naming the variable, and serves the rest', async () => {
    const beta = fixturePacks(['beta']);
    const withSettings = fixturePacks(['alpha'], SETTINGS);
    await h.start({ SATCHEL_PACKS: [withSettings, beta].join(',') });
    const [line] = h.logs('pack_invalid');
    expect(line).toMatchObject({ pack: 'alpha', missing: ['SATCHEL_PACK_ALPHA_API_TOKEN'] });
    expect(line?.msg).toContain('SATCHEL_PACK_ALPHA_API_TOKEN');
    // Beta alone is served: no picker, the turn goes straight to it.
    h.tg.text({ userId: ALLOWED_USER, text: 'hello' });
    await settled(h, 1);
    expect(h.rows<{ pack: string }>('SELECT pack FROM sessions')).toEqual([{ pack: 'beta' }]);
  });

  it('serves the pack once set, and keeps the secret out of the model, the database and the log', async () => {
    const dir = fixturePacks(['alpha'], SETTINGS);
    await h.start({
      SATCHEL_PACKS: dir,
      SATCHEL_PACK_ALPHA_API_TOKEN: SECRET,
      SATCHEL_PACK_ALPHA_CITY: 'Lyon',
    });
    expect(h.logs('pack_invalid')).toEqual([]);
    const text = `my token is ${SECRET}, keep it`;
    h.tg.text({ userId: ALLOWED_USER, text });
    await settled(h, 1);
    expect(h.rows<{ pack: string }>('SELECT pack FROM sessions')).toEqual([{ pack: 'alpha' }]);
    // Like the bot token, a secret setting is redacted wherever satchel carries text: the
    // model, the stored conversation and the log never hold it.
    expect(userTexts(h.model.chatRequests()[0]!).at(-1)).toBe('my token is [redacted], keep it');
    expect(h.rows('SELECT content FROM messages WHERE role = ?', 'user')).toEqual([
      { content: 'my token is [redacted], keep it' },
    ]);
    expect(JSON.stringify(h.logs())).not.toContain(SECRET);
    expect(JSON.stringify(h.model.chatRequests())).not.toContain(SECRET);
  });
});
