/**
 * Jobs in the chat (SPEC §8), end to end on the fake Bot API and model: a pack's jobs keep
 * running in a conversation after `/pack` makes another pack the active one there, and their
 * messages carry their pack's badge; a job's message enters its pack's chat session, so the
 * next turn with that pack has it; a reply to it is answered by the job's pack, whatever pack
 * is active, and the active pack stays. A tainted run taints the chat session it writes into.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type RecordedRequest, systemText, userTexts } from '../fakes/model-server.ts';
import type { ApiCall } from '../fakes/telegram-server.ts';
import { reply } from '../fakes/web-server.ts';
import {
  ALLOWED_USER,
  fixturePacks,
  handled,
  harnessPerTest,
  settled,
} from '../support/harness.ts';
import { JumpClock } from '../support/jump-clock.ts';
import { pickPackByButton } from '../support/pack-picker.ts';
import { pressOnLast } from '../support/user-acts.ts';
import { webServers } from '../support/web-servers.ts';

const HOUR = 3_600_000;
const GROUP = -100555;
const BOT = '@satchel_test_bot';
const MORNING = 'Morning! Water the fern.';
const h = harnessPerTest();
const servers = webServers();
let clock: JumpClock;

/** 10:00 UTC on a Monday; alpha's manifest job (`water-check`, skill alpha_one) runs daily at 08:00. */
async function start(packs = fixturePacks(['alpha', 'beta']), env: Record<string, string> = {}) {
  clock = new JumpClock(Date.UTC(2026, 10, 23, 10, 0, 0));
  await h.start({ SATCHEL_PACKS: packs, ...env }, { app: { clock } });
}

/** The private chat answers with alpha, then `/pack` makes beta the active pack (4 updates). */
async function alphaThenBeta(): Promise<void> {
  h.model.enqueue({ text: 'Hello from the garden.' });
  h.say('hi');
  await h.tg.waitForCall('sendMessage');
  pressOnLast(h, 'pack:alpha');
  await settled(h, 2);
  await pickPackByButton(h, 'beta', 2);
}

/** The person replies `text` to the bot's message `to`; the model request that answered it. */
async function replyTo(to: ApiCall, text: string) {
  await handled(
    h,
    h.tg.text({ userId: ALLOWED_USER, text, replyToMessageId: to.result.message_id }),
  );
  return h.model.chatRequests().at(-1)!;
}

/** `/pack` and a press of `pack`'s button, in chat `chatId`. */
async function switchTo(pack: string, chatId = ALLOWED_USER): Promise<void> {
  await handled(h, h.tg.text({ userId: ALLOWED_USER, chatId, text: '/pack' }));
  await handled(h, h.tg.callback({ userId: ALLOWED_USER, chatId, data: `pack:${pack}` }));
}

/** Moves the clock to the next 08:00 and waits for alpha's job to deliver `text`. */
async function morningJob(text = MORNING, runs = 1) {
  h.model.enqueue({ text });
  clock.advance(24 * HOUR);
  const sent = await h.tg.waitForCall('sendMessage', (c) => String(c.params.text).startsWith(text));
  await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(runs));
  return sent;
}

const activePack = (chatId = ALLOWED_USER) =>
  h.rows('SELECT active_pack FROM conversation_routes WHERE chat_id = ?', String(chatId));

const alphaJob = () =>
  h.rows<{ id: string; last_run_at: number | null; last_outcome: string | null }>(
    "SELECT id, last_run_at, last_outcome FROM jobs WHERE pack = 'alpha' AND source = 'manifest'",
  );

/** The messages stored in the chat session of `pack` in the private chat, oldest first. */
const chatSession = (pack: string) =>
  h.rows<{ role: string; content: string }>(
    `SELECT m.role, m.content FROM messages m JOIN sessions s ON s.id = m.session_id
     WHERE s.kind = 'chat' AND s.key = ? ORDER BY m.id`,
    `tg:${ALLOWED_USER}:${pack}`,
  );

/** The request's conversation (system prompt left out), as `role: text` lines. */
function history(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map(
      (m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
    );
}

describe('jobs in the chat (SPEC §8)', () => {
  it("/pack keeps the other pack's morning job: it fires with its badge and its state, and the active pack stays", async () => {
    await start();
    h.model.enqueue({ text: 'Hello from the garden.' });
    h.say('hi');
    await h.tg.waitForCall('sendMessage');
    pressOnLast(h, 'pack:alpha');
    await settled(h, 2);
    // While alpha is active: two packs installed, so its job's message has its badge too.
    const tuesday = await morningJob();
    expect(tuesday.params.text).toBe(`${MORNING}\n\n— Alpha Garden`);
    const before = alphaJob();
    expect(before).toMatchObject([{ last_outcome: 'delivered' }]);

    await switchTo('beta');
    // The same row with its last run: the switch made and removed nothing.
    await vi.waitFor(() => expect(h.logs('jobs_synced').length).toBeGreaterThan(0));
    expect(alphaJob()).toEqual(before);
    expect(h.logs('jobs_synced').filter((l) => Number(l.removed) > 0)).toEqual([]);

    const wednesday = await morningJob('Wednesday: water the fern.', 2);
    expect(wednesday.params.text).toBe('Wednesday: water the fern.\n\n— Alpha Garden');
    expect(activePack()).toEqual([{ active_pack: 'beta' }]);
    expect(alphaJob()).toMatchObject([{ id: before[0]!.id }]);
    // The job ran as alpha: its persona, not the active pack's.
    const run = h.model.chatRequests().at(-1)!;
    expect(systemText(run)).toContain('ALPHA-PERSONA');
    expect(systemText(run)).not.toContain('BETA-PERSONA');
    // /jobs in beta lists it, naming its pack.
    await handled(h, h.say('/jobs'));
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toMatch(
      /^- \w+: "0 8 \* \* \*" \(pack default\), skill alpha_one \[alpha\] — next tomorrow 08:00/,
    );
  });

  it("a job's message enters its pack's chat session: the next turn with that pack has it", async () => {
    await start();
    await alphaThenBeta();
    await morningJob();
    expect(chatSession('alpha')).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello from the garden.' },
      { role: 'assistant', content: MORNING },
    ]);
    expect(chatSession('beta').map((m) => m.content)).not.toContain(MORNING);
    // The job's own session keeps its run too (its own history, SPEC §8).
    const [own] = h.rows<{ kind: string }>(
      `SELECT s.kind FROM sessions s JOIN messages m ON m.session_id = s.id
       WHERE m.content = ? AND s.kind = 'job'`,
      MORNING,
    );
    expect(own?.kind).toBe('job');

    await switchTo('alpha');
    h.model.enqueue({ text: 'Good.' });
    await handled(h, h.say('I watered it'));
    const turn = h.model.chatRequests().at(-1)!;
    expect(systemText(turn)).toContain('ALPHA-PERSONA');
    expect(history(turn).slice(-2, -1)).toEqual([`assistant: ${MORNING}`]);
    expect(userTexts(turn).at(-1)).toBe('I watered it');
  });

  it("a reply to a job's message is answered by the job's pack in its session; the active pack stays", async () => {
    await start();
    await alphaThenBeta();
    const job = await morningJob();

    h.model.enqueue({ text: 'Well done.' });
    const answer = await replyTo(job, 'Done, it is watered');
    expect(systemText(answer)).toContain('ALPHA-PERSONA');
    expect(systemText(answer)).not.toContain('BETA-PERSONA');
    // The question is in the history, as what alpha said, right before the reply.
    expect(history(answer).slice(-2, -1)).toEqual([`assistant: ${MORNING}`]);
    expect(userTexts(answer).at(-1)).toContain('Done, it is watered');
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Well done.\n\n— Alpha Garden');
    expect(
      chatSession('alpha')
        .slice(-3)
        .map((m) => m.role),
    ).toEqual(['assistant', 'user', 'assistant']);
    expect(activePack()).toEqual([{ active_pack: 'beta' }]);
    expect(h.logs('job_reply_routed')).toMatchObject([{ pack: 'alpha', active: 'beta' }]);

    // The next message, a reply to nothing, goes to the active pack.
    h.model.enqueue({ text: 'Read Dune.' });
    await handled(h, h.say('what should I read?'));
    expect(systemText(h.model.chatRequests().at(-1)!)).toContain('BETA-PERSONA');
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Read Dune.\n\n— Beta Books');
  });

  it('a reply to a message of the active pack itself is answered as any message', async () => {
    await start();
    await alphaThenBeta();
    h.model.enqueue({ text: 'Try Dune.' });
    h.say('a book?');
    await settled(h, 5);
    const beta = h.tg.calls('sendMessage').at(-1)!;
    h.model.enqueue({ text: 'It is long.' });
    h.tg.text({ userId: ALLOWED_USER, text: 'why?', replyToMessageId: beta.result.message_id });
    await settled(h, 6);
    expect(systemText(h.model.chatRequests().at(-1)!)).toContain('BETA-PERSONA');
    expect(h.logs('job_reply_routed')).toEqual([]);
  });

  it('a job the schedule tool made keeps running after a switch, and its message enters its chat session', async () => {
    await start();
    h.say('hi');
    await h.tg.waitForCall('sendMessage');
    h.model.enqueue(
      {
        toolCalls: [
          {
            name: 'schedule',
            arguments: {
              action: 'create',
              schedule: '2026-11-23T18:00:00+00:00',
              prompt: 'Remind the user to water the fern.',
            },
          },
        ],
      },
      { text: 'I will remind you.' },
    );
    pressOnLast(h, 'pack:alpha');
    await settled(h, 2);
    await pickPackByButton(h, 'beta', 2);

    h.model.enqueue({ text: 'Time to water the fern!' });
    clock.advance(8 * HOUR);
    const sent = await h.tg.waitForCall('sendMessage', (c) =>
      String(c.params.text).startsWith('Time to water'),
    );
    expect(sent.params.text).toBe('Time to water the fern!\n\n— Alpha Garden');
    await vi.waitFor(() => expect(h.logs('job_run')).toMatchObject([{ outcome: 'delivered' }]));
    expect(chatSession('alpha').at(-1)).toEqual({
      role: 'assistant',
      content: 'Time to water the fern!',
    });
    expect(activePack()).toEqual([{ active_pack: 'beta' }]);
  });

  it("in a group, a job of a pack that is not the active one there carries its pack's badge", async () => {
    await start();
    const inGroup = { userId: ALLOWED_USER, chatId: GROUP, chatType: 'supergroup' as const };
    h.tg.text({ ...inGroup, text: `${BOT} hi` });
    await h.tg.waitForCall('sendMessage');
    h.model.enqueue({ text: 'Hello, group.' });
    h.tg.callback({ userId: ALLOWED_USER, chatId: GROUP, data: 'pack:alpha' });
    await settled(h, 2);
    // While alpha is the group's pack, its answers and its job carry no badge (SPEC §4).
    expect(h.tg.texts(GROUP).at(-1)).toBe('Hello, group.');
    await morningJob('Morning, group.');
    expect(h.tg.texts(GROUP).at(-1)).toBe('Morning, group.');

    await switchTo('beta', GROUP);
    await morningJob('Morning again.', 2);
    expect(h.tg.texts(GROUP).at(-1)).toBe('Morning again.\n\n— Alpha Garden');
    expect(activePack(GROUP)).toEqual([{ active_pack: 'beta' }]);
  });

  it('a restart keeps it all: the job, its badge, its message in the chat session, and where a reply goes', async () => {
    await start();
    await alphaThenBeta();
    const [job] = alphaJob();
    const tuesday = await morningJob('Tuesday: water the fern.');
    await h.restart();

    expect(alphaJob()).toMatchObject([{ id: job!.id, last_outcome: 'delivered' }]);
    h.model.enqueue({ text: 'Noted.' });
    const answer = await replyTo(tuesday, 'watered');
    expect(systemText(answer)).toContain('ALPHA-PERSONA');
    expect(history(answer).slice(-2, -1)).toEqual(['assistant: Tuesday: water the fern.']);
    expect(activePack()).toEqual([{ active_pack: 'beta' }]);

    const next = await morningJob('Wednesday: all good.', 2);
    expect(next.params.text).toBe('Wednesday: all good.\n\n— Alpha Garden');
    expect(
      chatSession('alpha')
        .filter((m) => m.role === 'assistant')
        .map((m) => m.content),
    ).toEqual([
      'Hello from the garden.',
      'Tuesday: water the fern.',
      'Noted.',
      'Wednesday: all good.',
    ]);
  });

  it('a tainted job run taints the chat session it writes into (SPEC §17)', async () => {
    const news = await servers.start((_req, res) =>
      reply(res, 'text/html', '<html><body><article><p>Ferns are in.</p></article></body></html>'),
    );
    const packs = fixturePacks(['alpha', 'beta']);
    const manifest = path.join(packs, 'alpha', 'pack.yml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace(/^tools: \[/m, 'tools: [web_fetch, '),
    );
    const skill = path.join(packs, 'alpha', 'skills', 'alpha_one', 'SKILL.md');
    writeFileSync(skill, `${readFileSync(skill, 'utf8')}\nRead ${news.url}/garden first.\n`);
    await start(packs, { WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${news.port}` });
    await alphaThenBeta();
    const sessionTaint = () =>
      h.rows<{ tainted_at: number | null; taint_sources: string | null }>(
        "SELECT tainted_at, taint_sources FROM sessions WHERE kind = 'chat' AND key = ?",
        `tg:${ALLOWED_USER}:alpha`,
      );
    expect(sessionTaint()).toEqual([{ tainted_at: null, taint_sources: null }]);

    h.model.enqueue(
      { toolCalls: [{ name: 'web_fetch', arguments: { url: `${news.url}/garden` } }] },
      { text: MORNING },
    );
    clock.advance(22 * HOUR);
    await vi.waitFor(() => expect(h.logs('job_run')).toHaveLength(1));
    expect(news.requests.map((r) => r.path)).toEqual(['/garden']);
    const [taint] = sessionTaint();
    expect(taint?.tainted_at).toBeGreaterThanOrEqual(Date.UTC(2026, 10, 24, 8, 0));
    expect(taint?.taint_sources).toBe(`web_fetch ${news.url}/garden`);
    // Beta's session read nothing of it.
    expect(
      h.rows(
        "SELECT tainted_at FROM sessions WHERE kind = 'chat' AND key = ?",
        `tg:${ALLOWED_USER}:beta`,
      ),
    ).toEqual([{ tainted_at: null }]);

    // What the person sees: /status in alpha says the session is tainted, and by what.
    await switchTo('alpha');
    await handled(h, h.say('/status'));
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(`tainted since`);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toContain(`web_fetch ${news.url}/garden`);
  });
});
