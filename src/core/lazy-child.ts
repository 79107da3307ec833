import type { Logger } from './ports.ts';

/**
 * `log.child(bindings)`, made when it first logs: a turn's tool logger is asked for on every
 * turn, and most turns never log through it (a pino child costs about 20 µs to make).
 */
export function lazyChild(log: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = (): Logger => {
    child ??= log.child(bindings);
    return child;
  };
  // The arguments go on as given: a message left out stays left out.
  type Args = Parameters<Logger['info']>;
  return {
    debug: (...args: Args) => made().debug(...args),
    info: (...args: Args) => made().info(...args),
    warn: (...args: Args) => made().warn(...args),
    error: (...args: Args) => made().error(...args),
    child: (more) => lazyChild(log, { ...bindings, ...more }),
  };
}
