import { type ParseArgsConfig, parseArgs } from 'node:util';

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
    throw new UsageError((error as Error).message);
  }
}

/** Fails when more positional arguments are given than the command takes. */
export function noMoreThan(positionals: string[], count: number): void {
  const extra = positionals[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
}
