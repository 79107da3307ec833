import { pino } from 'pino';
import type { Logger } from '../core/ports.ts';

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
  'config.telegram.token',
  'config.dashboard.token',
];

/**
 * The pino logger. Besides redacting secret keys, every string that contains one of
 * `secrets` (bot token, API keys) has it replaced, so a token inside a URL or an error
 * message never reaches the log.
 */
export function createLogger(options: {
  level: string;
  secrets: readonly (string | undefined)[];
  destination?: pino.DestinationStream;
}): Logger {
  const secrets = options.secrets.filter(
    (s): s is string => typeof s === 'string' && s.length >= 6,
  );
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      formatters: { log: (object) => scrub(object, secrets) as Record<string, unknown> },
    },
    options.destination,
  );
}

export function scrub(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0 || depth > 8) return value;
  if (typeof value === 'string') {
    return secrets.reduce((text, secret) => text.split(secret).join('[redacted]'), value);
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  if (value instanceof Error) {
    const { name, message, stack, cause } = value;
    return scrub({ type: name, message, stack, cause }, secrets, depth + 1);
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrub(v, secrets, depth + 1);
    return out;
  }
  return value;
}
