import { parseArgs } from 'node:util';
import type { CliIo } from '../core/cli-io.ts';
import { closest } from '../packs/suggest.ts';
import { parseArgsMessage, UsageError } from './args.ts';
import type { CliCommand, CliCommandInfo, LazyCliCommand } from './command.ts';

export interface Cli {
  /** A command given lazily is loaded only when it runs. */
  commands: readonly (CliCommand | LazyCliCommand)[];
  version: string;
}

const HELP_FLAGS = new Set(['--help', '-h']);
const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/**
 * Runs `satchel <command> [args]` and resolves with the exit code: the global options
 * (`--help`, `--version`) before the command; `--help` anywhere in a command's arguments
 * shows its help. Help and version go to stdout with 0; a missing or unknown command and
 * bad arguments go to stderr, with the usage, and 2.
 */
export async function runCli(cli: Cli, argv: string[], io: CliIo): Promise<number> {
  const fail = (message: string, usage: string) => {
    io.stderr.write(`${message}\n\n${usage}\n`);
    return 2;
  };
  const first = argv.findIndex((arg) => !arg.startsWith('-'));
  const leading = first < 0 ? argv : argv.slice(0, first);
  const words = first < 0 ? [] : argv.slice(first);
  let globals: { help?: boolean | undefined; version?: boolean | undefined };
  try {
    globals = parseArgs({ args: leading, options: GLOBAL_OPTIONS, strict: true }).values;
  } catch (error) {
    return fail(`satchel: ${parseArgsMessage(error, GLOBAL_OPTIONS)}`, usage(cli.commands));
  }
  if (globals.version) return print(io, cli.version);
  if (globals.help) return print(io, usage(cli.commands));
  if (words.length === 0) return fail('satchel: which command?', usage(cli.commands));

  const command = match(cli.commands, words);
  if (!command) {
    const group = cli.commands.filter((c) => c.path.length > 1 && c.path[0] === words[0]);
    const rest = words.slice(1);
    if (group.length > 0 && rest.every((w) => HELP_FLAGS.has(w)))
      return rest.length > 0
        ? print(io, usage(group, words[0]))
        : fail(`satchel ${words[0]}: which command?`, usage(group, words[0]));
    const named = words.slice(0, group.length > 0 ? 2 : 1).join(' ');
    return fail(
      `satchel: unknown command "${named}"${suggestCommand(cli.commands, named)}`,
      usage(cli.commands),
    );
  }
  const args = words.slice(command.path.length);
  const end = args.indexOf('--');
  if ((end < 0 ? args : args.slice(0, end)).some((a) => HELP_FLAGS.has(a)))
    return print(io, command.help);
  try {
    const loaded = 'load' in command ? await command.load() : command;
    return await loaded.run(args, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return fail(`satchel ${command.path.join(' ')}: ${error.message}`, command.help);
  }
}

/** " (did you mean doctor?)" for a typo of a command (`doctr`, `pack lst`), else "". */
function suggestCommand(commands: readonly CliCommandInfo[], named: string): string {
  const names = [...new Set(commands.map((c) => c.path.join(' ')))];
  const near = closest(named, names);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/** The command whose path is the longest prefix of `words`. */
function match<C extends CliCommandInfo>(commands: readonly C[], words: string[]): C | undefined {
  return commands
    .filter((c) => c.path.every((word, i) => words[i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

function print(io: CliIo, text: string): number {
  io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/** The list of commands, for `satchel --help` (or of one group: `satchel pack --help`). */
export function usage(commands: readonly CliCommandInfo[], group?: string): string {
  const names = commands.map((c) => c.path.join(' '));
  const width = Math.max(...names.map((n) => n.length)) + 2;
  const lines = commands.map((c, i) => `  ${names[i]!.padEnd(width)}${c.summary}`);
  const head = group ? `npx satchel ${group} <command>` : 'npx satchel <command> [options]';
  const options = group
    ? []
    : [
        '',
        'Options:',
        '  -h, --help     show this help',
        "  -v, --version  print satchel's version",
      ];
  return [
    `Usage: ${head}`,
    '',
    'Commands:',
    ...lines,
    ...options,
    '',
    `Run npx satchel ${group ? `${group} ` : ''}<command> --help for a command's options.`,
  ].join('\n');
}
