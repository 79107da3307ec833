/**
 * How long a wait for something a test expects (a call the fake received, a condition
 * `vi.waitFor` polls) goes on before the test fails. What the fakes see in tens of ms on a
 * quiet machine took seconds on a busy one (the suite's workers outnumber the cores, and
 * other work shares them), and a 1 s or 5 s wait then failed a test whose behaviour was right.
 * A wait still ends the moment its condition holds; only a failure is reported later. A test
 * that names its own timeout keeps it.
 */
export const WAIT_BUDGET_MS = 10_000;
