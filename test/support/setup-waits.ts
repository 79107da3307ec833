import { vi } from 'vitest';
import { WAIT_BUDGET_MS } from '../fakes/wait-budget.ts';

/**
 * vitest's `vi.waitFor` and `vi.waitUntil` give up after 1 s unless told otherwise; here
 * they wait up to WAIT_BUDGET_MS (see there why), polling as before. Loaded before every
 * test file (vitest.config.ts `setupFiles`); a worker that runs several files without
 * isolation loads it again, so it wraps once.
 */
type Options = number | { timeout?: number; interval?: number } | undefined;
const withBudget = (options: Options) =>
  typeof options === 'number' ? options : { timeout: WAIT_BUDGET_MS, ...options };

const WRAPPED = Symbol.for('satchel.waitBudget');
if (!(WRAPPED in vi.waitFor)) {
  const { waitFor, waitUntil } = vi;
  vi.waitFor = Object.assign(
    ((callback, options) => waitFor(callback, withBudget(options))) as typeof vi.waitFor,
    { [WRAPPED]: true },
  );
  vi.waitUntil = ((callback, options) =>
    waitUntil(callback, withBudget(options))) as typeof vi.waitUntil;
}
