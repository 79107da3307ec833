import { createRequire } from 'node:module';
import { pino } from 'pino';
import { ChannelError, MediaError, ProviderError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { redactSecretShapes } from '../core/redact.ts';

const require = createRequire(import.meta.url);

/** Keys whose values are secrets wherever they appear in a log object. */
const REDACT_PATHS = [
  'token',
  'apiKey',
  'authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.token',
  '*.apiKey',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'config.dashboard.token',
  // The environment as read: every key in it. An edge's own secrets come from the edge.
  'config.env',
];

/**
 * The pino logger. Besides redacting secret keys, every string that contains one of
 * `secrets` (bot token, API keys) or anything shaped like a secret (any bot token, `sk-…`,
 * `gsk_…`, `AIza…`, a Bearer credential) has it replaced, message included, so a token
 * inside a URL, an error message or a user's text never reaches the log. An error, wherever it sits in the log object, is logged
 * with its class (`type`), message, stack, own fields and `cause` chain.
 */
export function createLogger(options: {
  level: string;
  secrets: readonly (string | undefined)[];
  destination?: pino.DestinationStream;
  /** LOG_FORMAT: `json` or `pretty`; unset picks pretty for a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  /** Whether the output is a terminal (default: stdout's, when no destination is given). */
  tty?: boolean;
}): Logger {
  const secrets = options.secrets.filter(
    (s): s is string => typeof s === 'string' && s.length >= 6,
  );
  const tty = options.tty ?? (options.destination ? false : process.stdout.isTTY === true);
  const format = chooseLogFormat(options.format, tty);
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // pino runs the log formatter before the serializers, so errors are serialized inside
      // `scrub` while still Error instances; `err` only passes through what scrub made.
      serializers: { err: serializeError },
      formatters: { log: (object) => scrub(object, secrets) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrub(arg, secrets) : arg));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    format === 'pretty' ? prettyStream(options.destination, tty) : options.destination,
  );
}

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT wins; unset, a terminal gets the pretty form and anything else (a service) JSON. */
export function chooseLogFormat(setting: LogFormat | undefined, tty: boolean): LogFormat {
  return setting ?? (tty ? 'pretty' : 'json');
}

/**
 * pino-pretty's formatter as a synchronous destination in this process (not a worker
 * transport), so lines keep their order with the rest of the output and nothing is lost on
 * exit. It formats what pino wrote, after redaction and scrubbing: secrets never reach it.
 * The event name leads the message; pid and hostname are left out; each event is one line
 * (an error's stack, when it has one, follows it).
 */
function prettyStream(
  destination: pino.DestinationStream | undefined,
  colorize: boolean,
): pino.DestinationStream {
  // Loaded only for the pretty form (30 modules a service logging JSON never needs).
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const format = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,event',
    singleLine: true,
    messageFormat: '{if event}[{event}] {end}{msg}',
    // `err` (below a line, with its stack) only: an expected failure's summary stays inline.
    errorLikeObjectKeys: ['err'],
  });
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  return { write: (line: string) => out.write(format(foldExpectedError(line))) };
}

/**
 * An error logged without a stack (an expected failure, see `isExpected`) kept on the
 * event's one line in the readable form: `error` says its class, message, code and status,
 * instead of pino-pretty's indented block under the line. An error with a stack is left as
 * it is: a bug's stack is worth its lines.
 */
function foldExpectedError(line: string): string | Record<string, unknown> {
  if (!line.includes('"err":{') || line.includes('"stack":')) return line;
  const { err, ...entry } = JSON.parse(line) as { err?: Record<string, unknown> };
  if (!err || typeof err !== 'object' || typeof err.type !== 'string') return line;
  const tags = [err.code, err.status ?? err.error_code].filter((t) => t !== undefined);
  const summary = `${err.type}: ${err.message ?? ''}`;
  return { ...entry, error: tags.length > 0 ? `${summary} (${tags.join(', ')})` : summary };
}

/**
 * An error as a plain object: `type` (its class), `message`, `stack`, its own enumerable
 * fields (code, status, …) and `cause`, serialized the same way when it is an error.
 * Anything else is returned as it is.
 */
export function serializeError(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const out: Record<string, unknown> = { ...pino.stdSerializers.errWithCause(value) };
  // A cause that is not an Error (a status object, a string) is kept as it is.
  if (out.cause === undefined && value.cause !== undefined) out.cause = value.cause;
  if (isExpected(value)) dropStacks(out);
  return out;
}

/**
 * Failures that are part of normal operation (a provider's 429 or outage, a refused key, a
 * Telegram flood wait or refused token, a file satchel cannot take in without an optional
 * key): their message says all, so they are logged without stack traces. A MediaError with a
 * cause wraps a failure nobody expected, and keeps its stacks.
 */
function isExpected(error: Error): boolean {
  if (error instanceof MediaError) return error.cause === undefined;
  return error instanceof ProviderError || error instanceof ChannelError;
}

function dropStacks(serialized: Record<string, unknown>, depth = 0): void {
  delete serialized.stack;
  const cause = serialized.cause;
  if (depth < 8 && cause && typeof cause === 'object')
    dropStacks(cause as Record<string, unknown>, depth + 1);
}

/** `value` with every secret replaced in its strings, and errors serialized. */
export function scrub(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (depth > 8) return value;
  if (value instanceof Error) return scrub(serializeError(value), secrets, depth + 1);
  if (typeof value === 'string') {
    // Split only where the secret is: every string of every line is scrubbed.
    const known = secrets.reduce(
      (text, secret) => (text.includes(secret) ? text.split(secret).join('[redacted]') : text),
      value,
    );
    return redactSecretShapes(known);
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  // What JSON would print for a URL, a Date, …, scrubbed (its own fields would be empty).
  if (value && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return scrub((value as { toJSON(): unknown }).toJSON(), secrets, depth + 1);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrub(v, secrets, depth + 1);
    return out;
  }
  return value;
}
