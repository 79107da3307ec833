import { type ParseArgsConfig, parseArgs } from 'node:util';
import { closest } from '../packs/suggest.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Bad arguments: the CLI prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A command's arguments, parsed strictly by `node:util` parseArgs: an unknown option, a
 * missing value or a value given to a flag becomes a UsageError. `--help` is answered
 * before a command runs, so it is not among `options`.
 */
export function parseCommandArgs<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error, options));
  }
}

/**
 * parseArgs' error in our words: an unknown option is named with the nearest one
 * ("unknown option --pak (did you mean --pack?)") instead of Node's advice to put it
 * after `--`, which fits a typo badly.
 */
export function parseArgsMessage(error: unknown, options: Options): string {
  const message = (error as Error).message;
  if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const typed = /Unknown option '([^']+)'/.exec(message)?.[1];
  if (typed === undefined) return message;
  const near = typed.startsWith('--') ? closest(typed.slice(2), Object.keys(options)) : undefined;
  return `unknown option ${typed}${near === undefined ? '' : ` (did you mean --${near}?)`}`;
}

/** Fails when more positional arguments are given than the command takes. */
export function noMoreThan(positionals: string[], count: number): void {
  const extra = positionals[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
}

/** The one positional argument a command takes; `missing` tells what to give when none is. */
export function oneArgument(positionals: string[], missing: string): string {
  const [first] = positionals;
  if (first === undefined) throw new UsageError(missing);
  noMoreThan(positionals, 1);
  return first;
}

/** The one positional argument a command takes (`missing`: what to say when it is not given). */
export function onePositional(args: string[], missing: string): string {
  return oneArgument(parseCommandArgs(args, {}).positionals, missing);
}
