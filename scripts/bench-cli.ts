/**
 * CLI start-up benchmark (not a test): how long `npx satchel …` takes, each run a fresh
 * process started as the `satchel` bin starts (node scripts/satchel.mjs, which registers
 * tsx), against a bare `node` and a bare tsx start in the same rounds, alternating; the
 * median of BENCH_CLI_RUNS runs (default 7), after one warm-up run of each (tsx's cache
 * filled, as on a developer's machine after the first run).
 *
 *   npx tsx scripts/bench-cli.ts     (part of: npm run bench)
 *
 * A command is timed twice: doing its work offline (a temporary SATCHEL_HOME with a
 * database, the bundled packs, a fake model server and a fake Telegram), and given an
 * argument it refuses only once its module has loaded (`doctor --fix`, `usage --days 0`,
 * `pack validate` without a folder, `models x`). That run is its start-up without the work;
 * the difference is the work (loading the code the work needs included). Targets (issue 43):
 * `--version` and `--help` within 1.5× a bare tsx start, every command's start-up under 1 s.
 * A MISS exits 1. Wall time is what a user waits; CPU time (the process's user and system
 * time, all threads) says how much of it was satchel's own on a busy machine.
 *
 * Knobs: BENCH_CLI_RUNS; BENCH_CLI_BEFORE, the folder of another checkout (with its
 * node_modules, e.g. `git worktree add ../before main`) whose bin is timed in the same
 * rounds, for a before/after table.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openCoreStore } from '../src/store/client.ts';
import { FakeModel } from '../test/fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../test/fakes/telegram-server.ts';

import { markdownTable, ms, p50, table, verdict } from './bench/stats.ts';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
const BEFORE = process.env.BENCH_CLI_BEFORE ? path.resolve(process.env.BENCH_CLI_BEFORE) : '';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'scripts/satchel.mjs');
const CPU_TIME = fileURLToPath(new URL('./bench/cpu-time.mjs', import.meta.url));
const MODULE_LOG = fileURLToPath(new URL('../test/support/module-log.mjs', import.meta.url));
const TSX = import.meta.resolve('tsx');
const PACK = path.join(ROOT, 'packs/vocab');
/** Issue 43: `--version` (and `--help`) within this many times a bare tsx start. */
const QUICK_RATIO = 1.5;
/** Issue 43: every command's start-up, without its work, under this. */
const STARTUP_MS = 1000;
/** The owner and the model key doctor is given (the fake servers check them). */
const OWNER = '111';
const OPENAI_KEY = 'sk-bench-openai-key-0123456789';

interface Command {
  name: string;
  args: string[];
  /** The exit code of the run with its work. */
  code: number;
  /** Arguments it refuses (exit 2) once its module has loaded: its start-up alone. */
  startup?: string[];
}

const COMMANDS: Command[] = [
  { name: '--version', args: ['--version'], code: 0 },
  { name: '--help', args: ['--help'], code: 0 },
  { name: 'doctor --help', args: ['doctor', '--help'], code: 0 },
  { name: 'doctor', args: ['doctor'], code: 0, startup: ['doctor', '--fix'] },
  {
    name: 'pack validate packs/vocab',
    args: ['pack', 'validate', PACK],
    code: 0,
    startup: ['pack', 'validate'],
  },
  { name: 'usage', args: ['usage'], code: 0, startup: ['usage', '--days', '0'] },
  { name: 'models', args: ['models'], code: 0, startup: ['models', 'x'] },
];

/** One way to start a process, timed in every round. */
interface Variant {
  key: string;
  args: string[];
  code: number;
  wall: number[];
  cpu: number[];
  modules?: number;
}

const work = mkdtempSync(path.join(tmpdir(), 'satchel-bench-cli-'));
const home = path.join(work, 'home');
const cwd = path.join(work, 'cwd');
mkdirSync(cwd);
const emptyTs = path.join(work, 'empty.ts');
writeFileSync(emptyTs, 'export const empty: number = 0;\n');
const cpuFile = path.join(work, 'cpu');
const moduleFile = path.join(work, 'modules');

function variant(key: string, args: string[], code = 0): Variant {
  return { key, args, code, wall: [], cpu: [] };
}

/** Runs `node args` in the empty working directory; resolves with its wall time. */
function run(v: Variant, env: Record<string, string>, extra: string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...extra, ...v.args], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - started;
      if (code !== v.code)
        reject(new Error(`${v.key} exited ${code}, not ${v.code}:\n${stderr.slice(0, 2000)}`));
      else resolve(wall);
    });
  });
}

async function main(): Promise<void> {
  const tg = await FakeTelegram.start();
  const model = await FakeModel.start();
  try {
    openCoreStore(home).close();
    // What `doctor` needs to pass offline; the other commands ignore what they do not read.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      SATCHEL_HOME: home,
      SATCHEL_PACKS: path.join(ROOT, 'packs'),
      TELEGRAM_BOT_TOKEN: TEST_TOKEN,
      TELEGRAM_API_ROOT: tg.apiRoot,
      ALLOWED_USER_IDS: OWNER,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${model.url}/v1`,
      LLM_MODEL: 'gpt-4.1-mini',
      DASHBOARD_PORT: '0',
    };

    const node = variant('node -e 0', ['-e', '0']);
    const tsx = variant('tsx: an empty .ts', ['--import', TSX, emptyTs]);
    const bins = BEFORE
      ? [
          { label: '', bin: BIN },
          { label: ' (before)', bin: path.join(BEFORE, 'scripts/satchel.mjs') },
        ]
      : [{ label: '', bin: BIN }];
    const of = new Map<string, Variant>();
    for (const c of COMMANDS)
      for (const { label, bin } of bins) {
        of.set(`${c.name}${label}`, variant(`satchel ${c.name}${label}`, [bin, ...c.args], c.code));
        if (c.startup)
          of.set(
            `${c.name} start-up${label}`,
            variant(`satchel ${c.startup.join(' ')}${label}`, [bin, ...c.startup], 2),
          );
      }
    const all = [node, tsx, ...of.values()];

    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(
      `\nCLI start-up benchmark — node ${process.version}, ${RUNS} alternating rounds, ` +
        `load average ${load()} on ${cpus().length} cores${BEFORE ? `; before: ${BEFORE}` : ''}\n`,
    );
    if (loadavg()[0]! > cpus().length)
      console.log(
        'The machine is busy (load above its cores): wall times wait for a core; CPU times are the steadier figure.\n',
      );
    for (const v of all) await run(v, env); // warm-up: tsx's cache, the disk cache
    for (const v of all) {
      rmSync(moduleFile, { force: true });
      await run(v, { ...env, SATCHEL_MODULE_LOG: moduleFile }, ['--import', MODULE_LOG]);
      const logged = existsSync(moduleFile) ? readFileSync(moduleFile, 'utf8') : '';
      const urls = new Set(logged.split('\n').filter(Boolean));
      // The logger's own two files are not the command's.
      v.modules = [...urls].filter((u) => !u.includes('/module-log')).length;
    }
    for (let round = 0; round < RUNS; round++) {
      // A different first process each round, so none always runs after the same one.
      const order = [...all.slice(round % all.length), ...all.slice(0, round % all.length)];
      for (const v of order) {
        rmSync(cpuFile, { force: true });
        v.wall.push(await run(v, { ...env, BENCH_CPU_FILE: cpuFile }, ['--import', CPU_TIME]));
        v.cpu.push(Number(readFileSync(cpuFile, 'utf8')));
      }
    }
    report(node, tsx, of);
    console.log(`\nload average at the end: ${load()}`);
  } finally {
    await tg.stop();
    await model.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function report(node: Variant, tsx: Variant, of: Map<string, Variant>): void {
  const base = p50(tsx.wall);
  const misses: string[] = [];
  const headers = [
    'what',
    'wall p50',
    'CPU p50',
    'modules',
    ...(BEFORE ? ['before: wall p50', 'CPU p50', 'modules'] : []),
    'target',
    'verdict',
  ];
  const cells = (v: Variant | undefined) =>
    v ? [ms(p50(v.wall), 0), ms(p50(v.cpu), 0), String(v.modules ?? '—')] : ['—', '—', '—'];
  const rows: string[][] = [];
  const row = (name: string, v: Variant, target: string, ok: string, before?: Variant) => {
    rows.push([name, ...cells(v), ...(BEFORE ? cells(before) : []), target, ok]);
    if (ok === 'MISS') misses.push(`${name}: ${ms(p50(v.wall), 0)}, target ${target}`);
  };
  row('node -e 0', node, '', '');
  row('tsx: an empty .ts', tsx, '', '');
  for (const c of COMMANDS) {
    const whole = of.get(c.name)!;
    const before = of.get(`${c.name} (before)`);
    if (!c.startup) {
      const ratio = p50(whole.wall) / base;
      row(
        `satchel ${c.name} (${ratio.toFixed(2)}× tsx)`,
        whole,
        `≤ ${QUICK_RATIO}× tsx`,
        verdict(ratio, QUICK_RATIO),
        before,
      );
      continue;
    }
    const startup = of.get(`${c.name} start-up`)!;
    row(
      `satchel ${c.name}: start-up (${c.startup.join(' ')})`,
      startup,
      `< ${STARTUP_MS} ms`,
      verdict(p50(startup.wall), STARTUP_MS - 0.001),
      of.get(`${c.name} start-up (before)`),
    );
    const workMs = p50(whole.wall) - p50(startup.wall);
    row(`satchel ${c.name}: with its work (work ≈ ${ms(workMs, 0)})`, whole, '', '', before);
  }
  console.log(table(headers, rows));
  console.log(`\nMarkdown (docs/PERFORMANCE.md):\n\n${markdownTable(headers, rows)}`);
  if (misses.length > 0) {
    console.log(
      `\nMISS — CLI start-up misses its target:\n${misses.map((m) => `  MISS ${m}`).join('\n')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
