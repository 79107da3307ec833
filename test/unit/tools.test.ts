import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import type { Address } from '../../src/core/types.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { OutboundPayload } from '../../src/outbound/degrade.ts';
import type { Outbox } from '../../src/outbound/outboxes.ts';
import { createActionKeyboards } from '../../src/packs/action-keyboards.ts';
import { loadPack, type Pack } from '../../src/packs/loader.ts';
import { openPackStorage, type PackStorage } from '../../src/packs/storage.ts';
import { type CoreStore, openCoreStore } from '../../src/store/client.ts';
import { createJobRepo } from '../../src/store/job-repo.ts';
import { createKeyboardRepo } from '../../src/store/keyboard-repo.ts';
import { createAskRegistry } from '../../src/tools/asks.ts';
import { createToolRunner, packTools } from '../../src/tools/registry.ts';
import { defineTool, ToolError } from '../../src/tools/tool.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { offlineWeb } from '../support/web-tools.ts';

let home: string;
let core: CoreStore;
let pack: Pack;
let storage: PackStorage;
const sent: OutboundPayload[] = [];
const chat = { platform: 'tg' as const, chatId: '42' };
const otherChat = { platform: 'tg' as const, chatId: '43' };

/** Records what send_message would send; delivery itself is covered end to end elsewhere. */
const outbox = {
  writePayload: (_to: unknown, payload: OutboundPayload) => {
    sent.push(payload);
    return {
      ids: [],
      ...(payload.kind === 'photo' ? { note: 'photo sent as text with a link' } : {}),
    };
  },
  dispatch: async () => true,
} as unknown as Outbox;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'satchel-tools-'));
  core = openCoreStore(home);
  pack = loadPack(path.join(FIXTURE_PACKS, 'alpha'));
  storage = openPackStorage(home, pack);
  sent.length = 0;
});
afterEach(() => {
  storage.close();
  core.close();
  rmSync(home, { recursive: true, force: true });
});

function runner(
  to: Address = chat,
  clock: Clock = systemClock,
  options: {
    inJobRun?: boolean;
    maxJobs?: number;
    channelName?: string;
    refused?: boolean;
    /** A web search provider is set up (one that finds nothing). */
    searching?: boolean;
  } = {},
) {
  const web = offlineWeb(clock);
  if (options.searching)
    web.web.search = {
      ...web.web.search,
      provider: { name: 'searxng', search: async () => [] },
    };
  const ctx = {
    pack,
    storage,
    address: to,
    channelName: options.channelName ?? 'Telegram',
    senderId: options.inJobRun ? undefined : to.chatId,
    inJobRun: options.inJobRun ?? false,
    outbox: options.refused ? { ...outbox, dispatch: async () => false } : outbox,
    asks: createAskRegistry(systemClock),
    keyboards: createActionKeyboards({ repo: createKeyboardRepo(core.db), clock }),
    jobs: createJobRepo(core.db, {
      timezone: 'Europe/Berlin',
      ...(options.maxJobs ? { maxJobs: options.maxJobs } : {}),
    }),
    clock,
    timezone: 'Europe/Berlin',
    ...web,
    sessionKey: 'telegram:1:alpha',
    messages: { search: () => [] },
    taint: () => [],
  };
  return createToolRunner(packTools(ctx), createLogger({ level: 'silent', secrets: [] }));
}
let n = 0;
const use = (tools: ReturnType<typeof runner>, name: string, args: object) =>
  tools.run({ id: `c${n++}`, name, arguments: JSON.stringify(args) }, new AbortController().signal);

/** The id of the job a "created job …" answer names. */
const createdId = (answer: string) => /created job (\S+):/.exec(answer)?.[1];

/** Creates a job with the schedule tool: its answer, and the id that names. */
async function createJob(tools: ReturnType<typeof runner>, args: object) {
  const created = await use(tools, 'schedule', { action: 'create', ...args });
  return { created, id: createdId(created) };
}

describe('memory', () => {
  it('reads, appends and replaces the pack notes', async () => {
    const tools = runner();
    expect(await use(tools, 'memory', { action: 'read', file: 'MEMORY.md' })).toContain(
      'ALPHA-MEMORY-NOTE',
    );
    await use(tools, 'memory', { action: 'append', file: 'USER.md', text: 'Likes ferns.' });
    expect(storage.readNote('USER.md')).toMatch(/ALPHA-USER-NOTE\nLikes ferns\.\n$/);
    await use(tools, 'memory', { action: 'replace', file: 'USER.md', text: 'Only this.' });
    expect(storage.readNote('USER.md')).toBe('Only this.\n');
    expect(await use(tools, 'memory', { action: 'append', file: 'USER.md' })).toBe(
      'Error: "text" is required to append USER.md',
    );
    expect(await use(tools, 'memory', { action: 'read', file: '../../satchel.db' })).toMatch(
      /^Error: invalid arguments: file/,
    );
  });
});

describe('skill_view', () => {
  it("loads this pack's skill and nothing else", async () => {
    const tools = runner();
    expect(await use(tools, 'skill_view', { name: 'alpha_one' })).toContain('ALPHA-ONE-BODY');
    expect(await use(tools, 'skill_view', { name: 'beta_one' })).toBe(
      'Error: no skill "beta_one" in this pack; skills: alpha_one, alpha_two',
    );
  });
});

describe('send_message', () => {
  it('names the channel the turn is on when it refuses the message, never another', async () => {
    const web = { platform: 'web', chatId: 'w-1' };
    for (const [to, name] of [
      [web, 'the web chat'],
      [chat, 'Telegram'],
    ] as const) {
      const tools = runner(to, systemClock, { channelName: name, refused: true });
      const result = await use(tools, 'send_message', { kind: 'text', text: 'Hello' });
      expect(result).toContain(`${name} did not accept the message, so it was not sent`);
      if (name !== 'Telegram') expect(result).not.toContain('Telegram');
    }
  });

  it('sends text, keyboards and files from the workspace, and reports degrades', async () => {
    const tools = runner();
    writeFileSync(path.join(storage.filesDir, 'chart.png'), 'png');
    expect(await use(tools, 'send_message', { kind: 'text', text: 'Hello **you**' })).toBe('sent');
    await use(tools, 'send_message', {
      kind: 'keyboard',
      text: 'Pick',
      buttons: ['Tea', 'Coffee'],
    });
    expect(
      await use(tools, 'send_message', { kind: 'photo', path: 'chart.png', caption: 'c' }),
    ).toBe('sent, degraded: photo sent as text with a link');
    expect(sent).toEqual([
      { kind: 'text', text: 'Hello **you**', format: 'markdown' },
      {
        kind: 'text',
        text: 'Pick',
        format: 'markdown',
        keyboard: [[{ text: 'Tea', data: 'say:Tea' }], [{ text: 'Coffee', data: 'say:Coffee' }]],
      },
      {
        kind: 'photo',
        source: { path: realpathSync(path.join(storage.filesDir, 'chart.png')) },
        caption: 'c',
      },
    ]);
  });

  it('refuses files outside the pack workspace', async () => {
    const tools = runner();
    for (const p of ['../pack.db', '../../../satchel.db', '/etc/passwd'])
      expect(await use(tools, 'send_message', { kind: 'document', path: p })).toBe(
        'Error: "path" must be a file inside the pack workspace (files/)',
      );
    expect(sent).toEqual([]);
  });

  it('sends no file at all for a pack that declares send_files: false, and says so; text still goes', async () => {
    writeFileSync(path.join(storage.filesDir, 'chart.png'), 'png');
    pack = { ...pack, manifest: { ...pack.manifest, send_files: false } };
    const tools = runner();
    expect(tools.specs.find((s) => s.name === 'send_message')?.description).not.toContain('photo');
    for (const args of [
      { kind: 'photo', path: 'chart.png' },
      { kind: 'document', url: 'https://example.com/a.pdf' },
    ])
      expect(await use(tools, 'send_message', args)).toBe(
        'Error: this pack sends text and buttons only (send_files: false in its pack.yml): put the link in the text instead',
      );
    expect(sent).toEqual([]);
    expect(await use(tools, 'send_message', { kind: 'text', text: 'hello' })).toBe('sent');
  });

  it('refuses symlinks that lead out of the workspace, and follows those that stay in it', async () => {
    const tools = runner();
    const files = storage.filesDir;
    writeFileSync(path.join(files, 'chart.png'), 'png');
    symlinkSync(path.join(home, 'satchel.db'), path.join(files, 'notes.txt'));
    symlinkSync(home, path.join(files, 'home'));
    symlinkSync(path.join(files, 'chart.png'), path.join(files, 'latest.png'));
    for (const p of ['notes.txt', 'home/satchel.db', 'home/packs/alpha/pack.db'])
      expect(await use(tools, 'send_message', { kind: 'document', path: p })).toBe(
        'Error: "path" must be a file inside the pack workspace (files/)',
      );
    expect(sent).toEqual([]);

    expect(await use(tools, 'send_message', { kind: 'photo', path: 'latest.png' })).toBe(
      'sent, degraded: photo sent as text with a link',
    );
    expect(sent).toEqual([
      { kind: 'photo', source: { path: realpathSync(path.join(files, 'chart.png')) } },
    ]);
  });

  it('refuses a hard link like a symlink: the same file may live outside the workspace', async () => {
    const tools = runner();
    const files = storage.filesDir;
    writeFileSync(path.join(home, 'secret.env'), 'OPENAI_API_KEY=sk-x');
    linkSync(path.join(home, 'secret.env'), path.join(files, 'notes.txt'));
    expect(await use(tools, 'send_message', { kind: 'document', path: 'notes.txt' })).toBe(
      'Error: "notes.txt" is a hard link to a file with other names; it is not sent',
    );
    expect(sent).toEqual([]);
  });

  it('refuses a missing file, a directory or a NUL byte at once, before anything is queued', async () => {
    const tools = runner();
    mkdirSync(path.join(storage.filesDir, 'reports'));
    const send = (p: string) => use(tools, 'send_message', { kind: 'document', path: p });
    expect(await send('missing.pdf')).toBe(
      'Error: there is no file "missing.pdf" in the pack workspace (files/)',
    );
    expect(await send('reports/missing.pdf')).toBe(
      'Error: there is no file "reports/missing.pdf" in the pack workspace (files/)',
    );
    expect(await send('reports')).toBe(
      'Error: "reports" is a directory, not a file; give the path of a file',
    );
    expect(await send('report\0.pdf')).toBe('Error: "path" must not contain a NUL byte');
    expect(sent).toEqual([]);
  });

  it('cuts button data to 64 bytes between characters, never inside an emoji', async () => {
    const tools = runner();
    const smiles = '😀'.repeat(14);
    const family = '👨‍👩‍👧';
    const accents = `e${'\u0301'.repeat(39)}`;
    const labels = [`a${smiles}😀`, `${'😀'.repeat(12)}${family}`, accents, 'odd\uD83Dx', 'Tea'];
    await use(tools, 'send_message', { kind: 'keyboard', text: 'Pick', buttons: labels });
    const data = (sent[0] as { keyboard: { data: string }[][] }).keyboard.map(([b]) => b!.data);
    expect(data).toEqual([
      `say:a${smiles}`,
      `say:${'😀'.repeat(12)}`,
      `say:e${'\u0301'.repeat(29)}`,
      'say:odd\uFFFDx',
      'say:Tea',
    ]);
    for (const d of data) {
      expect(Buffer.byteLength(d)).toBeLessThanOrEqual(64);
      expect(Buffer.from(d, 'utf8').toString('utf8')).toBe(d);
    }
  });
});

describe('schedule', () => {
  // Sunday 22 Nov 2026, 12:00 UTC: 13:00 in Berlin (UTC+1).
  const clock = new FakeClock();
  /** The job repo, with the pack's own daily job (from its manifest) in this chat. */
  const withManifestJob = () => {
    const jobs = createJobRepo(core.db, { timezone: 'Europe/Berlin' });
    jobs.syncManifest(
      [
        {
          pack: 'alpha',
          cronId: 'water-check',
          to: chat,
          schedule: '0 8 * * *',
          skill: 'alpha_one',
          enabled: true,
        },
      ],
      clock.now(),
    );
    return jobs;
  };

  it("creates, lists, pauses, resumes and removes this pack's jobs in this chat only", async () => {
    const tools = runner(chat, clock);
    const { created, id } = await createJob(tools, {
      schedule: '30 7 * * 1-5',
      skill: 'alpha_one',
    });
    expect(created).toBe(
      `created job ${id}: "30 7 * * 1-5" in Europe/Berlin; its next run is tomorrow 07:30 Europe/Berlin (2026-11-23T07:30:00+01:00), and its answers are sent to this chat`,
    );
    expect(core.sqlite.prepare('SELECT * FROM jobs').get()).toMatchObject({
      id,
      kind: 'cron',
      source: 'tool',
      chat_id: '42',
      next_run_at: Date.UTC(2026, 10, 23, 6, 30),
    });
    expect(await use(tools, 'schedule', { action: 'list' })).toBe(
      `- ${id}: "30 7 * * 1-5", skill alpha_one — next tomorrow 07:30\nTimes are in Europe/Berlin.`,
    );
    expect(await use(tools, 'schedule', { action: 'pause', id })).toBe(`job ${id} paused`);
    expect(await use(tools, 'schedule', { action: 'list' })).toContain('— paused');
    expect(await use(tools, 'schedule', { action: 'resume', id })).toBe(
      `job ${id} resumed; its next run is tomorrow 07:30 Europe/Berlin (2026-11-23T07:30:00+01:00)`,
    );

    const other = runner(otherChat, clock);
    expect(await use(other, 'schedule', { action: 'list' })).toBe('No scheduled jobs.');
    expect(await use(other, 'schedule', { action: 'remove', id })).toBe(
      `Error: no job "${id}" of this pack in this chat`,
    );
    expect(await use(tools, 'schedule', { action: 'remove', id })).toBe(`job ${id} removed`);
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
  });

  it('creates a one-shot from an ISO 8601 date-time with an offset', async () => {
    const tools = runner(chat, clock);
    const { created, id } = await createJob(tools, {
      schedule: '2026-11-23T12:00:00-05:00',
      prompt: 'Remind me to call Anna',
    });
    expect(created).toBe(
      `created job ${id}: it runs once, tomorrow 18:00 Europe/Berlin (2026-11-23T18:00:00+01:00), and its answer is sent to this chat`,
    );
    expect(core.sqlite.prepare('SELECT * FROM jobs').get()).toMatchObject({
      kind: 'once',
      schedule: '2026-11-23T12:00:00-05:00',
      next_run_at: Date.UTC(2026, 10, 23, 17, 0),
    });
    expect(await use(tools, 'schedule', { action: 'list' })).toContain(
      `- ${id}: once, "Remind me to call Anna" — next tomorrow 18:00`,
    );
  });

  it('refuses schedules it cannot run, saying how to write them', async () => {
    const tools = runner(chat, clock);
    const create = (schedule: string, skill = 'alpha_one') =>
      use(tools, 'schedule', { action: 'create', schedule, skill });
    expect(await create('2026-11-22T12:30:00+01:00')).toBe(
      'Error: 2026-11-22T12:30:00+01:00 is in the past (it is now 2026-11-22T13:00:00+01:00); give a future time.',
    );
    expect(await create('2026-11-23T18:00')).toBe(
      'Error: "2026-11-23T18:00" has no UTC offset. Write the date-time with its offset, e.g. "2026-11-23T18:00:00+01:00" for that time in Europe/Berlin.',
    );
    expect(await create('2026-06-01T09:00:00')).toContain('"2026-06-01T09:00:00+02:00"');
    expect(await create('2026-02-30T10:00:00+01:00')).toBe(
      'Error: "2026-02-30T10:00:00+01:00" is not a real date and time',
    );
    expect(await create('2026-11-23 at 6pm')).toBe(
      'Error: "2026-11-23 at 6pm" is not an ISO 8601 date-time. Write it as YYYY-MM-DDTHH:MM:SS with its UTC offset, e.g. "2026-11-23T18:00:00+01:00".',
    );
    expect(await create('daily')).toBe(
      'Error: "daily" is not a valid 5-field cron expression (it has 1 field(s), not 5). Write "minute hour day-of-month month day-of-week", e.g. "0 8 * * *" for every day at 08:00 (Europe/Berlin), or an ISO 8601 date-time with an offset for one run, e.g. "2026-11-23T18:00:00+01:00".',
    );
    expect(await create('61 * * * *')).toMatch(/Invalid value for minute/);
    expect(await create('0 0 30 2 *')).toBe('Error: "0 0 30 2 *" never falls due');
    expect(await create('0 9 * * *', 'beta_one')).toBe('Error: no skill "beta_one" in this pack');
    expect(await use(tools, 'schedule', { action: 'create', schedule: '0 9 * * *' })).toBe(
      'Error: give a "skill" or a "prompt" to run',
    );
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
  });

  it('refuses a repeating job more often than once a minute; every minute is allowed', async () => {
    const tools = runner(chat, clock);
    const create = (schedule: string) =>
      use(tools, 'schedule', { action: 'create', schedule, prompt: 'Ping' });
    const seconds =
      'has a seconds field, but a repeating job runs at most once a minute. Write 5 fields, "minute hour day-of-month month day-of-week": "* * * * *" is every minute, "*/5 * * * *" every five minutes.';
    // croner itself would run these every 30 s, every second, and every hour at :08:00.
    expect(await create('*/30 * * * * *')).toBe(`Error: "*/30 * * * * *" ${seconds}`);
    expect(await create('* * * * * *')).toBe(`Error: "* * * * * *" ${seconds}`);
    expect(await create('0 8 * * * *')).toBe(`Error: "0 8 * * * *" ${seconds}`);
    expect(await create('0 0 * * * * *')).toBe(`Error: "0 0 * * * * *" ${seconds}`);
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
    expect(await create('* * * * *')).toMatch(
      /^created job \S+: "\* \* \* \* \*" in Europe\/Berlin; its next run is today 13:01 /,
    );
    expect(core.sqlite.prepare('SELECT schedule, kind FROM jobs').all()).toEqual([
      { schedule: '* * * * *', kind: 'cron' },
    ]);
  });

  it('keeps a pack within MAX_JOBS jobs per chat, and says how to free a slot', async () => {
    withManifestJob();
    const tools = runner(chat, clock, { maxJobs: 3 });
    const create = (on = tools) =>
      use(on, 'schedule', { action: 'create', schedule: '0 9 * * *', prompt: 'Water' });
    const ids = [await create(), await create()].map(createdId);
    expect(ids).toHaveLength(2);
    const full =
      'Error: this pack already has 3 scheduled jobs in this chat, the most it may have (MAX_JOBS = 3). To free a slot, remove a job that is no longer needed (action "remove" with its id; "list" shows them), or ask the user which one to drop.';
    expect(await create()).toBe(full);
    const inChat = () =>
      core.sqlite.prepare(
        'SELECT count(*) AS n FROM jobs WHERE chat_id = 42 AND thread_id IS NULL',
      );
    expect(inChat().get()).toEqual({ n: 3 }); // the manifest's job counts too
    // Another chat, and a topic of this one, have their own slots.
    expect(await create(runner(otherChat, clock, { maxJobs: 3 }))).toMatch(/^created job/);
    const inTopic = runner({ ...chat, threadId: '7' }, clock, { maxJobs: 3 });
    expect(await create(inTopic)).toMatch(/^created job/);
    expect(await create()).toBe(full);
    // Removing one frees its slot.
    expect(await use(tools, 'schedule', { action: 'remove', id: ids[0] })).toBe(
      `job ${ids[0]} removed`,
    );
    expect(await create()).toMatch(/^created job/);
    expect(inChat().get()).toEqual({ n: 3 });
  });

  it("refuses create in a job's own run unless the manifest sets jobs_may_schedule", async () => {
    const run = runner(chat, clock, { inJobRun: true });
    const create = (on: typeof run, schedule = '2026-11-22T13:30:00+01:00') =>
      use(on, 'schedule', { action: 'create', schedule, prompt: 'Again' });
    expect(await create(run)).toBe(
      "Error: a scheduled job's run cannot create jobs (this pack's manifest does not set jobs_may_schedule: true). If a new job is needed, say so in your answer and the user can ask for it in the chat.",
    );
    expect(await use(run, 'schedule', { action: 'list' })).toBe('No scheduled jobs.');
    // The same call from the user's own turn works.
    expect(await create(runner(chat, clock))).toMatch(/^created job/);

    pack = { ...pack, manifest: { ...pack.manifest, jobs_may_schedule: true } };
    const allowed = runner(chat, clock, { inJobRun: true });
    // A chain of one-shots is a repeating job: each link at least a minute ahead.
    expect(await create(allowed, '2026-11-22T13:00:59+01:00')).toBe(
      "Error: a one-shot created by a scheduled job's run must be at least a minute ahead; give a later time",
    );
    expect(await create(allowed, '2026-11-22T13:01:00+01:00')).toMatch(/^created job/);
    expect(await create(allowed, '*/10 * * * *')).toMatch(/^created job/);
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 3 });
  });

  it("pauses the pack's own jobs but does not remove them", async () => {
    const jobs = withManifestJob();
    const id = jobs.list('alpha', chat)[0]!.id;
    const tools = runner(chat, clock);
    expect(await use(tools, 'schedule', { action: 'list' })).toContain(
      `- ${id}: "0 8 * * *" (pack default), skill alpha_one — next tomorrow 08:00`,
    );
    expect(await use(tools, 'schedule', { action: 'remove', id })).toBe(
      `Error: job ${id} is one of the pack's own jobs and comes back with the pack; pause it instead`,
    );
    expect(await use(tools, 'schedule', { action: 'pause', id })).toBe(`job ${id} paused`);
  });
});

describe('the tool runner', () => {
  it('only offers the tools the pack enables', () => {
    pack = { ...pack, manifest: { ...pack.manifest, tools: ['memory', 'db_query'] } };
    expect(runner().specs.map((s) => s.name)).toEqual(['memory', 'db_query']);
    expect(runner().specs[0]?.parameters).toMatchObject({
      type: 'object',
      properties: { action: { enum: ['read', 'append', 'replace'] } },
    });
  });

  it("sends db_write's column maps without zod's redundant propertyNames", () => {
    pack = { ...pack, manifest: { ...pack.manifest, tools: ['db_write'] } };
    const parameters = runner().specs[0]?.parameters as {
      properties: Record<string, Record<string, unknown>>;
    };
    for (const key of ['values', 'where']) {
      expect(parameters.properties[key]).toEqual({
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      });
    }
  });

  it('reports bad JSON and unknown tools to the model', async () => {
    const tools = runner();
    const signal = new AbortController().signal;
    expect(await tools.run({ id: 'x', name: 'memory', arguments: '{oops' }, signal)).toBe(
      'Error: arguments are not valid JSON',
    );
    expect(await tools.run({ id: 'y', name: 'nope', arguments: '{}' }, signal)).toMatch(
      /^Error: unknown tool "nope"/,
    );
  });
});

describe('a failing tool reaches the model as a result beginning with "Error:"', () => {
  const failing = (failure: () => never) =>
    defineTool({
      name: 'memory',
      description: 'fails',
      schema: z.object({}),
      effect: 'read',
      run: async () => failure(),
    });
  const lines: string[] = [];
  const log = createLogger({
    level: 'warn',
    secrets: [],
    destination: { write: (line: string) => void lines.push(line) },
  });

  it.each([
    [
      'a ToolError',
      () => {
        throw new ToolError('no such row');
      },
      'Error: no such row',
    ],
    [
      'an empty ToolError',
      () => {
        throw new ToolError('');
      },
      'Error: ',
    ],
    [
      'a crash',
      () => {
        throw new TypeError('x.y is undefined');
      },
      'Error: the tool failed unexpectedly',
    ],
    [
      'a thrown string',
      () => {
        throw 'boom';
      },
      'Error: the tool failed unexpectedly',
    ],
  ])('%s', async (_what, failure, expected) => {
    lines.length = 0;
    const tools = createToolRunner([failing(failure)], log);
    const call = { id: 'c1', name: 'memory', arguments: '{}' };
    expect(await tools.run(call, new AbortController().signal)).toBe(expected);
    // What went wrong inside stays in the log, for the operator.
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: 'tool_error', tool: 'memory' }),
    ]);
  });
});

describe('the web tools are offered only to a pack that lists them', () => {
  const specBytes = (tools: ReturnType<typeof runner>) => JSON.stringify(tools.specs).length;

  it('a pack without them gets the same tools and request size as before; with them, two specs more', () => {
    const without = runner(chat, systemClock, { searching: true });
    expect(without.specs.map((s) => s.name)).not.toContain('web_fetch');
    expect(without.specs.map((s) => s.name)).not.toContain('web_search');
    const before = specBytes(without);
    pack = {
      ...pack,
      manifest: { ...pack.manifest, tools: [...pack.manifest.tools, 'web_fetch', 'web_search'] },
    };
    const withWeb = runner(chat, systemClock, { searching: true });
    expect(withWeb.specs.map((s) => s.name).slice(-2)).toEqual(['web_fetch', 'web_search']);
    // Without a search provider web_search is not offered at all (SPEC §13).
    expect(
      runner()
        .specs.map((s) => s.name)
        .slice(-2),
    ).toEqual(['schedule', 'web_fetch']);
    const added = specBytes(withWeb) - before;
    // What enabling both costs every request of the pack, in bytes of tool specs.
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(900);
  });

  it('of the bundled packs the assistant researches and vocab looks a word up (web_fetch)', () => {
    const bundled = path.join(path.dirname(FIXTURE_PACKS), '..', '..', 'packs');
    const web = ['assistant', 'habits', 'journal', 'vocab'].map((name) =>
      loadPack(path.join(bundled, name)).manifest.tools.filter((t) => t.startsWith('web_')),
    );
    expect(web).toEqual([['web_search', 'web_fetch'], [], [], ['web_fetch']]);
  });
});
