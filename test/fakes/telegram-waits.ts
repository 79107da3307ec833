/**
 * What the fake Telegram server's `waitFor…` helpers wait on: every change the fake records
 * (a call, a confirmed offset, a download, a webhook delivery) calls `notify`, which settles the
 * waits whose condition now holds.
 */
export class Waits {
  private readonly listeners = new Set<() => boolean>();

  /**
   * Resolves with `check()`'s first defined value; rejects after `timeoutMs` with the message
   * `describe()` gives then (what the test expected and what the fake saw).
   */
  until<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    const error = new Error('timeout'); // created here so the stack points at the test
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (value === undefined) return false;
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        error.message = describe();
        reject(error);
      }, timeoutMs);
      if (!listener()) this.listeners.add(listener);
    });
  }

  notify(): void {
    for (const listener of [...this.listeners]) if (listener()) this.listeners.delete(listener);
  }
}
