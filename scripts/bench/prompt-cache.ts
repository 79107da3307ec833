/**
 * How much of each model request a provider's prompt cache could serve: a 20-turn
 * conversation with the bundled journal pack (its prompt, seven tools, a few tool calls),
 * turns minutes apart on a clock the benchmark moves, and for each chat request the share
 * of the previous request that it repeats byte for byte as its prefix. Measured on the JSON
 * bodies the fake model server received (OpenAI format, as the openai SDK sends them).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { FakeModel, type ScriptedReply } from '../../test/fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../../test/fakes/telegram-server.ts';
import { JumpClock } from '../../test/support/jump-clock.ts';
import { until } from './stats.ts';

const PACKS = fileURLToPath(new URL('../../packs', import.meta.url));
const USER = 4242;
const MINUTE = 60_000;

/** How long `a` and `b` agree from their first character. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The share (0..1) of `previous` that `next` repeats as its prefix. */
export function prefixShare(previous: string, next: string): number {
  return previous.length === 0 ? 1 : commonPrefix(previous, next) / previous.length;
}

/** One turn: what the user says, after how many minutes, and how the model answers. */
interface Turn {
  gapMinutes: number;
  text: string;
  replies: ScriptedReply[];
}

const answer = (text: string): ScriptedReply => ({
  text: `${text} ${'Noted, and I will keep it in mind for the weekly review. '.repeat(3)}`,
});

/**
 * 20 turns, 2 to 15 minutes apart; four of them use tools as the journal's skills do, one is
 * a skill command (/checkin).
 */
function conversation(): Turn[] {
  const gaps = [0, 4, 7, 3, 12, 5, 9, 6, 2, 15, 8, 5, 3, 11, 6, 4, 9, 7, 5, 10];
  const texts = [
    'Good morning! I slept badly again.',
    'Can you write that down in my journal?',
    'Mood 3, energy 2, tag it sleep.',
    'What did I write last week about work?',
    'Thanks. The meeting at 11 went better than expected.',
    'Add that too, please: the meeting went well, tag work.',
    'How many entries do I have this month?',
    'I want to go to bed earlier this week.',
    'What could help me fall asleep faster?',
    'I will try reading instead of the phone.',
    'Remind me what I wrote about reading before.',
    'Lunch was good, I walked for 20 minutes.',
    '/checkin mood 4, energy 3',
    'What is my average mood this week?',
    'Ok. Anything I should keep in mind for tomorrow?',
    'My sister calls tonight, I am looking forward to it.',
    'Write an entry about the walk and the call.',
    'Which tags have I used most?',
    'Thanks, that is all for now.',
    'One more thing: what day is it today?',
  ];
  const tools: Record<number, ScriptedReply[]> = {
    2: [
      { toolCalls: [{ name: 'skill_view', arguments: { name: 'write' } }] },
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'entries',
              values: {
                entry_date: '2026-11-24',
                mood: 3,
                energy: 2,
                tags: ',sleep,',
                body: 'Slept badly again.',
              },
            },
          },
        ],
      },
    ],
    3: [
      { toolCalls: [{ name: 'skill_view', arguments: { name: 'search' } }] },
      {
        toolCalls: [
          {
            name: 'db_query',
            arguments: {
              sql: 'SELECT id, entry_date, tags, body FROM entries ORDER BY entry_date DESC LIMIT 20',
            },
          },
        ],
      },
    ],
    6: [
      {
        toolCalls: [{ name: 'db_query', arguments: { sql: 'SELECT count(*) AS n FROM entries' } }],
      },
    ],
    // A skill command: its instructions come pinned, no skill_view.
    12: [
      {
        toolCalls: [
          {
            name: 'db_write',
            arguments: {
              action: 'insert',
              table: 'checkins',
              values: { checkin_date: '2026-11-24', mood: 4, energy: 3 },
            },
          },
        ],
      },
    ],
  };
  return texts.map((text, i) => ({
    gapMinutes: gaps[i] ?? 5,
    text,
    replies: [...(tools[i] ?? []), answer(`Got it (${i + 1}).`)],
  }));
}

export interface PromptCacheResult {
  turns: number;
  requests: number;
  /** Per pair of consecutive chat requests: the share of the earlier one repeated. */
  shares: {
    turn: number;
    firstOfTurn: boolean;
    /** On the wire: the request body as the openai SDK sent it. */
    share: number;
    /** As a provider reads the prompt: tools first, then the messages (model, options aside). */
    promptShare: number;
    chars: number;
  }[];
  /** The user-visible answer to "what day is it" (the last turn) came from this request. */
  lastRequestUserText: string;
  /** That request's last message: the system prompt's clock line, after the conversation. */
  lastRequestClock: string;
}

/**
 * Runs the conversation on satchel as it ships (createApp on fresh fakes, the bundled
 * journal pack, `SATCHEL_TIMEZONE`), 09:00 on a Tuesday onwards.
 */
export async function measurePromptCache(timezone = 'Europe/Berlin'): Promise<PromptCacheResult> {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  const root = mkdtempSync(path.join(tmpdir(), 'satchel-bench-cache-'));
  cpSync(path.join(PACKS, 'journal'), path.join(root, 'packs', 'journal'), { recursive: true });
  const clock = new JumpClock(Date.UTC(2026, 10, 24, 8, 0, 0));
  const app = createApp(
    parseConfig({
      TELEGRAM_BOT_TOKEN: TEST_TOKEN,
      TELEGRAM_API_ROOT: tg.apiRoot,
      ALLOWED_USER_IDS: String(USER),
      SATCHEL_HOME: path.join(root, 'home'),
      SATCHEL_PACKS: path.join(root, 'packs'),
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: `${model.url}/v1`,
      LLM_MODEL: 'gpt-4.1-mini',
      BATCH_WINDOW_MS: '0',
      SATCHEL_TIMEZONE: timezone,
      DASHBOARD_PORT: '0',
      LOG_LEVEL: 'warn',
    }),
    { clock, announce: () => {}, logDestination: { write: () => {} } },
  );
  await app.start();
  const turns = conversation();
  const firsts = new Set<number>();
  try {
    for (const [i, turn] of turns.entries()) {
      clock.advance(turn.gapMinutes * MINUTE);
      model.enqueue(...turn.replies);
      firsts.add(model.chatRequests().length);
      tg.text({ userId: USER, text: turn.text });
      const want = i + 1;
      await until(() => (tg.texts(USER).length >= want ? true : undefined), `answer ${want}`);
    }
  } finally {
    await app.stop();
    await tg.stop();
    await model.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const requests = model.chatRequests();
  const bodies = requests.map((r) => JSON.stringify(r.body));
  const prompts = requests.map((r) => JSON.stringify([r.body.tools ?? [], r.body.messages]));
  let turn = 0;
  const shares = bodies.slice(1).map((body, k) => {
    const index = k + 1;
    if (firsts.has(index)) turn++;
    return {
      turn: turn + 1,
      firstOfTurn: firsts.has(index),
      share: prefixShare(bodies[index - 1]!, body),
      promptShare: prefixShare(prompts[index - 1]!, prompts[index]!),
      chars: body.length,
    };
  });
  const last = model.chatRequests().at(-1);
  const messages = (last?.body.messages ?? []) as { role: string; content: unknown }[];
  const lastUser = messages.filter((m) => m.role === 'user').at(-1);
  const clockLine = messages.at(-1);
  return {
    turns: turns.length,
    requests: bodies.length,
    shares,
    lastRequestUserText: typeof lastUser?.content === 'string' ? lastUser.content : '',
    lastRequestClock: clockLine?.role === 'system' ? String(clockLine.content) : '',
  };
}
