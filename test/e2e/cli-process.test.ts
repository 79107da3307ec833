import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_PACKS } from '../support/harness.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { ALIAS_BOMB } from '../support/yaml-bomb.ts';

// The `satchel` bin as npx starts it, in a process of its own: what only a real process shows
// (the exit code set by the entry, `start` owning the process, the modules a start loads).
// What the commands say and their exit codes are tested in process (test/unit/cli.test.ts).

const BIN = fileURLToPath(new URL('../../scripts/satchel.mjs', import.meta.url));
const MODULE_LOG = fileURLToPath(new URL('../support/module-log.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = tempDirs('satchel-cli-process-');

/** Runs `node [node options] scripts/satchel.mjs args` in an empty folder, with only PATH. */
function satchel(args: string[], options: { node?: string[]; env?: Record<string, string> } = {}) {
  const cwd = tempDir();
  const child = spawn(process.execPath, [...(options.node ?? []), BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string; cwd: string }>(
    (resolve) => child.on('close', (status) => resolve({ status, stdout, stderr, cwd })),
  );
}

/** The modules `satchel args` loads: their URLs, relative to the repository. */
async function loadedBy(...args: string[]) {
  const log = path.join(tempDir(), 'modules');
  const run = await satchel(args, {
    node: ['--import', MODULE_LOG],
    env: { SATCHEL_MODULE_LOG: log },
  });
  const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const files = urls
    .filter((url) => url.startsWith('file:'))
    .map((url) => path.relative(ROOT, fileURLToPath(url)));
  const packages = new Set(
    files.flatMap((file) => {
      const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
      return match ? [match[1]!] : [];
    }),
  );
  return { run, files, packages, source: files.filter((f) => f.startsWith('src/')).sort() };
}

/** What no start of the CLI's own (`--version`, `--help`) may load: an SDK or the database. */
const HEAVY = [
  'openai',
  'groq-sdk',
  '@google/genai',
  'better-sqlite3',
  'better-sqlite3-napi',
  'drizzle-orm',
  'grammy',
  '@grammyjs/runner',
  '@modelcontextprotocol/sdk',
];

/** The CLI's table: all of satchel that `--version` and `--help` load. */
const TABLE = [
  'src/cli/args.ts',
  'src/cli/commands.ts',
  'src/cli/dispatch.ts',
  'src/cli/help.ts',
  'src/cli/main.ts',
  'src/packs/suggest.ts',
  'src/start-help.ts',
  'src/usage/days.ts',
];

describe('the satchel bin', () => {
  it('prints the version and exits 0; an unknown command exits 2 with the usage', async () => {
    const [version, unknown] = await Promise.all([satchel(['--version']), satchel(['frobnicate'])]);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^satchel: unknown command "frobnicate"\n\nUsage: npx satchel/);
  });

  it('starts the bot as npm start does: the same configuration check first', async () => {
    // No bot token is needed (the web chat runs alone); a model key is.
    const run = await satchel(['start']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('OPENAI_API_KEY is required');
  });

  it('stops the start on a DEFAULT_PACK of no loaded pack, naming the variable, no stack', async () => {
    const run = await satchel(['start'], {
      env: {
        OPENAI_API_KEY: 'sk-test-not-used',
        SATCHEL_PACKS: FIXTURE_PACKS,
        DEFAULT_PACK: 'gamma',
        DASHBOARD_PORT: '0',
      },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'satchel: Invalid configuration:\n- DEFAULT_PACK names "gamma", which is not a loaded pack (loaded: alpha, beta): set it to one of them, or leave it empty for the pack picker\n',
    );
  }, 30_000);

  it('refuses an alias bomb or an oversized models.yaml at start in one sentence, no stack', async () => {
    const dir = tempDir();
    const bomb = path.join(dir, 'bomb.yaml');
    writeFileSync(bomb, ALIAS_BOMB);
    const big = path.join(dir, 'big.yaml');
    writeFileSync(big, 'openai:x: {}\n'.repeat(200_000));
    const key = { OPENAI_API_KEY: 'sk-test-not-used' };
    const [bombed, oversized] = await Promise.all([
      satchel(['start'], { env: { ...key, SATCHEL_MODELS: bomb } }),
      satchel(['start'], { env: { ...key, SATCHEL_MODELS: big } }),
    ]);
    expect(bombed.status).toBe(1);
    expect(bombed.stderr).toBe(
      `satchel: Invalid model catalog:\n- ${bomb}: expands its aliases (*name) more than 100 times; satchel expands at most 100\n`,
    );
    expect(oversized.status).toBe(1);
    expect(oversized.stderr).toBe(
      `satchel: Invalid model catalog:\n- ${big}: is 2.5 MB; satchel reads at most 1 MB of YAML from one file\n`,
    );
  }, 30_000);

  it('loads no command, SDK or database for --version, --help or a command’s --help', async () => {
    const runs = await Promise.all(
      [['--version'], ['--help'], ['doctor', '--help'], ['pack', 'test', '--help']].map((args) =>
        loadedBy(...args),
      ),
    );
    for (const { run, packages, source } of runs) {
      expect(run.status, run.stderr).toBe(0);
      expect(
        HEAVY.filter((name) => packages.has(name)),
        run.stdout,
      ).toEqual([]);
      expect(source).toEqual(TABLE);
    }
  }, 30_000);

  it('loads a command and its work when it runs: ES modules and CommonJS ones are both seen', async () => {
    // The check above would pass with a log that saw nothing: this one shows it sees both.
    const { run, packages, source } = await loadedBy(
      'pack',
      'validate',
      path.join(FIXTURE_PACKS, 'alpha'),
    );
    expect(run.status, run.stderr).toBe(0);
    expect(source).toContain('src/cli/pack-validate.ts');
    expect(packages.has('zod')).toBe(true); // an ES module
    // CommonJS, through createRequire: the driver this Node takes (src/store/sqlite.ts), the
    // Node-API build on Node 22.14 and later.
    expect(packages.has('better-sqlite3') || packages.has('better-sqlite3-napi')).toBe(true);
  }, 30_000);
});
