/**
 * People benchmark (not a test; SPEC §19): what a person's turns cost against the owner's.
 * One satchel process runs the bundled journal pack with the owner and BENCH_PEOPLE other
 * listed people. Each person's first turn in the pack creates their home (its pack.db from
 * the schema, USER.md, MEMORY.md, files/); their later turns use it. Turns go one at a time,
 * the owner's and a person's alternating, so drift on a shared machine falls on both alike.
 *
 *   before = the model request has arrived − getUpdates served the update
 *   CPU    = the bot process's CPU time (user + system) across the turn, reply included
 *
 * Target: a person's later turns cost no more than the owner's (p50 before and CPU, within
 * SLACK of the owner's: two runs of the same code differ by that much). A miss is printed as
 * a `MISS:` line on stderr and the script exits 1, like the other benches.
 *
 *   npx tsx scripts/bench-people.ts     (part of: npm run bench)
 *
 * Knobs: BENCH_PEOPLE (other people, default 10), BENCH_TURNS (later turns of each side,
 * default 40).
 */
import { cpus, loadavg } from 'node:os';
import { lastUserText } from '../test/fakes/model-server.ts';
import { type BotChild, spawnBot } from './bench/bot-control.ts';
import { openRig, type Rig } from './bench/rig.ts';
import { markdownTable, ms, p50, p95, table, until } from './bench/stats.ts';

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 10);
const TURNS = Number(process.env.BENCH_TURNS ?? 40);
const OWNER = 7001;
const GUESTS = Array.from({ length: PEOPLE }, (_, i) => 7101 + i);
/** "No more than the owner's": within 10 %, or within this many ms. */
const SLACK = { ratio: 1.1, ms: 1 };

interface Turn {
  before: number;
  cpu: number;
}

let labels = 0;

/** One turn in `user`'s private chat, waited for to its reply; what it cost. */
async function turn(rig: Rig, bot: BotChild, user: number): Promise<Turn> {
  const label = `people-bench-${++labels}`;
  const cpuBefore = await bot.cpuMs();
  const update = rig.tg.text({ userId: user, text: label });
  const request = await until(
    () => rig.model.chatRequests().find((r) => lastUserText(r) === label),
    `the model request of ${label}`,
  );
  await until(
    () =>
      rig.tg
        .calls('sendMessage')
        .find((c) => Number(c.params.chat_id) === user && String(c.params.text).includes(label)),
    `the reply to ${label}`,
  );
  const served = rig.tg.servedAt(update);
  if (served === undefined) throw new Error(`${label}: its update was never served`);
  return { before: request.receivedAt - served, cpu: (await bot.cpuMs()) - cpuBefore };
}

/** The figures of a set of turns: p50 (p95) of before and of CPU. */
function row(name: string, turns: readonly Turn[]): string[] {
  const before = turns.map((t) => t.before);
  const cpu = turns.map((t) => t.cpu);
  return [
    name,
    String(turns.length),
    `${ms(p50(before))} (${ms(p95(before))})`,
    `${ms(p50(cpu))} (${ms(p95(cpu))})`,
  ];
}

/** Whether `person` is no more than `owner` (p50), within SLACK. */
function noMore(person: readonly number[], owner: readonly number[]): 'ok' | 'MISS' {
  const [p, o] = [p50(person), p50(owner)];
  return p <= o * SLACK.ratio || p - o <= SLACK.ms ? 'ok' : 'MISS';
}

async function main(): Promise<number> {
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `people benchmark — node ${process.version}, ${cpus().length} CPU(s), load ${load.join(' ')} at start; ` +
      `the owner and ${PEOPLE} people, ${TURNS} later turns each side\n`,
  );
  const rig = await openRig();
  const bot = await spawnBot('satchel', rig.env('satchel', rig.newHome(), [OWNER, ...GUESTS]));
  const owner: Turn[] = [];
  const first: Turn[] = [];
  const later: Turn[] = [];
  try {
    rig.model.setDefault((req) => ({ text: `echo: ${lastUserText(req)}` }));
    // The owner's first turn binds the pack and opens the session: not measured.
    await turn(rig, bot, OWNER);
    for (const guest of GUESTS) first.push(await turn(rig, bot, guest));
    for (let i = 0; i < TURNS; i++) {
      owner.push(await turn(rig, bot, OWNER));
      later.push(await turn(rig, bot, GUESTS[i % GUESTS.length]!));
    }
  } finally {
    await bot.stop();
    await rig.close();
  }

  const rows = [
    row("the owner's turns", owner),
    row("a person's first turn (home created)", first),
    row("a person's later turns", later),
  ];
  console.log('Turns one at a time, ms: p50 (p95)');
  console.log(table(['turns', 'n', 'before the model call', 'CPU'], rows));
  const summary = [
    ...rows.map((r) => [`${r[0]}: before / CPU (p50)`, `${r[2]} / ${r[3]}`, 'reported', '—']),
    [
      "a person's later turns against the owner's: before (p50)",
      `${ms(p50(later.map((t) => t.before)))} vs ${ms(p50(owner.map((t) => t.before)))}`,
      `≤ the owner's (+${Math.round((SLACK.ratio - 1) * 100)} % or +${SLACK.ms} ms)`,
      noMore(
        later.map((t) => t.before),
        owner.map((t) => t.before),
      ),
    ],
    [
      "a person's later turns against the owner's: CPU (p50)",
      `${ms(p50(later.map((t) => t.cpu)))} vs ${ms(p50(owner.map((t) => t.cpu)))}`,
      `≤ the owner's (+${Math.round((SLACK.ratio - 1) * 100)} % or +${SLACK.ms} ms)`,
      noMore(
        later.map((t) => t.cpu),
        owner.map((t) => t.cpu),
      ),
    ],
  ];
  const end = loadavg().map((l) => l.toFixed(1));
  console.log(`\nSummary (load ${load.join(' ')} → ${end.join(' ')})\n`);
  console.log(markdownTable(['figure', 'measured', 'target', ''], summary));
  const misses = summary.filter((r) => r[3] === 'MISS');
  for (const [figure, measured, target] of misses)
    console.error(`MISS: ${figure}: ${measured}, target ${target}`);
  return misses.length;
}

main().then(
  (misses) => process.exit(misses > 0 ? 1 : 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
