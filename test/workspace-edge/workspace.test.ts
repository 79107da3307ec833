/**
 * A second string-id channel (edge.ts, this folder) joins satchel by one entry in the edge
 * list, and brings its own people and settings (SPEC §19): its allowlist variable in its own
 * id shape, checked at start; its pairing, by `/pair` and by `satchel pair`; its section of
 * `/healthz`; its doctor line; its secret kept out of the log.
 */
import { describe, expect, it, vi } from 'vitest';
import { createPairCommand } from '../../src/cli/pair.ts';
import { parseConfig } from '../../src/config/config.ts';
import { lintEnvText } from '../../src/config/env-lint.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { EDGES, edgesOf, edgeVariables } from '../../src/edges.ts';
import { formatChecks } from '../../src/ops/check.ts';
import { runDoctor } from '../../src/ops/doctor.ts';
import { recordingIo } from '../support/cli-io.ts';
import { harnessPerTest } from '../support/harness.ts';
import { dmOf, WORKSPACE_PLATFORM, workspaceEdge } from './edge.ts';

const h = harnessPerTest();
const OWNER = 'U024BE7LH';
const STRANGER = 'U0G9QF9C6';
const LATER = 'U07QWERTY';
const TOKEN = 'wsk-0123456789abcdefghij';

/** satchel with the workspace edge listed after the built-in ones. */
async function start(env: Record<string, string> = {}) {
  const ws = workspaceEdge();
  const list = [...EDGES, ws.module];
  await h.start(
    { WORKSPACE_ALLOWED_USER_IDS: OWNER, WORKSPACE_TOKEN: TOKEN, ...env },
    { app: { edges: (config) => edgesOf(config, list) } },
  );
  const shown = (user: string) => ws.channel.shown(dmOf(user));
  return { ws, list, shown };
}

async function healthz() {
  const [started] = h.logs('web_chat_started');
  const response = await fetch(new URL('/healthz', String(started?.url)));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The pairing code a stranger was shown (their chat's last message). */
function codeIn(text: string | undefined): string {
  const code = /pairing code to the owner: ([A-Z0-9]{8})$/.exec(text ?? '')?.[1];
  if (!code) throw new Error(`no pairing code in ${JSON.stringify(text)}`);
  return code;
}

describe('a second string-id channel, added by its folder and one list entry', () => {
  it('lets its listed user in, pairs a stranger with /pair, and reports its own /healthz section', async () => {
    const { ws, shown } = await start();
    ws.say(OWNER, 'hello from the workspace');
    await vi.waitFor(() => expect(shown(OWNER)).toEqual(['echo: hello from the workspace']));

    // Its own section, beside Telegram's: keyed by platform, nothing merged.
    await vi.waitFor(async () => {
      const { status, body } = await healthz();
      expect(status).toBe(200);
      expect(body).toMatchObject({
        ok: true,
        edges: { tg: { ok: true, mode: 'polling' }, ws: { ok: true, connected: true, events: 1 } },
      });
    });

    // A stranger gets a code and no model call; the owner pairs them on this channel.
    ws.say(STRANGER, 'let me in', 'Sam');
    await vi.waitFor(() => expect(shown(STRANGER)).toHaveLength(1));
    const code = codeIn(shown(STRANGER)[0]);
    ws.say(OWNER, `/pair ${code}`);
    await vi.waitFor(() =>
      expect(shown(STRANGER)).toContain(
        'The owner approved you: you can talk to me now. Send me a message to start.',
      ),
    );
    expect(shown(OWNER).at(-1)).toBe(
      `Paired Sam (id ${STRANGER}): they can talk to me now. I have told them so.`,
    );
    expect(h.rows('SELECT platform, user_id, chat_id FROM paired_users')).toEqual([
      { platform: WORKSPACE_PLATFORM, user_id: STRANGER, chat_id: `D${STRANGER.slice(1)}` },
    ]);
    ws.say(STRANGER, 'thanks');
    await vi.waitFor(() => expect(shown(STRANGER).at(-1)).toBe('echo: thanks'));
    // Only the two turns reached the model: the stranger's first message did not.
    expect(h.model.chatRequests()).toHaveLength(2);
    // Its secret never reaches the log.
    expect(JSON.stringify(h.logs())).not.toContain(TOKEN);
  });

  it('pairs through `satchel pair` and the edge list: the person is told on their channel', async () => {
    const { ws, list, shown } = await start();
    ws.say(LATER, 'hi there');
    await vi.waitFor(() => expect(shown(LATER)).toHaveLength(1));
    const io = recordingIo(h.env, h.home);
    const code = await createPairCommand(undefined, list).run([codeIn(shown(LATER)[0])], io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({
      code: 0,
      out: `Paired id ${LATER}: they can talk to me now.\nThey were told in their chat.\n`,
      err: '',
    });
    expect(shown(LATER).at(-1)).toBe(
      'The owner approved you: you can talk to me now. Send me a message to start.',
    );
  });

  it('checks its own variable in its own id shape, knows it in .env, and has its doctor line', async () => {
    const config = parseConfig({ OPENAI_API_KEY: 'sk-test', WORKSPACE_ALLOWED_USER_IDS: '12345' });
    const list = [...EDGES, workspaceEdge().module];
    expect(() => edgesOf(config, list)).toThrow(ConfigError);
    expect(() => edgesOf(config, list)).toThrow(
      'WORKSPACE_ALLOWED_USER_IDS has "12345", which is not a workspace user id',
    );
    // Telegram's allowlist takes digits only: a workspace id is not one of its.
    expect(() =>
      edgesOf(parseConfig({ OPENAI_API_KEY: 'sk-test', ALLOWED_USER_IDS: OWNER }), list),
    ).toThrow(`ALLOWED_USER_IDS has "${OWNER}", which is not a numeric Telegram user id`);
    expect(lintEnvText(`WORKSPACE_ALLOWED_USER_IDS=${OWNER}\n`, edgeVariables(list))).toEqual([]);
    expect(lintEnvText(`WORKSPACE_ALLOWED_USER_IDS=${OWNER}\n`, edgeVariables())).toHaveLength(1);

    await h.start({ WORKSPACE_ALLOWED_USER_IDS: `${OWNER},${STRANGER}` });
    const checks = await runDoctor({
      env: h.env,
      timeoutMs: 2000,
      edges: (c) => edgesOf(c, list),
    });
    expect(formatChecks(checks)).toContain('✓ workspace allowlist: 2 user(s)\n');
  });
});
