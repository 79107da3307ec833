import dns from 'node:dns';

/** Host names that stay on this machine. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

export interface LoopbackGuard {
  /** The other host names something in this process tried to reach, in order. */
  refused(): string[];
  /** Puts the real lookup back. */
  restore(): void;
}

/**
 * Makes every connection this process opens by host name stay on 127.0.0.1: the name
 * lookup behind node:http, node:https and fetch fails at once for any other host (as it
 * does offline), and the host is recorded, so a test can assert it reached none. An address
 * written in digits is not looked up, and is not caught.
 */
export function loopbackOnly(): LoopbackGuard {
  const real = dns.lookup;
  const refused: string[] = [];
  const guarded = (hostname: string, ...rest: unknown[]) => {
    if (LOOPBACK.test(hostname)) return Reflect.apply(real, dns, [hostname, ...rest]);
    refused.push(hostname);
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException) => void;
    const error: NodeJS.ErrnoException = Object.assign(
      new Error(`getaddrinfo ENOTFOUND ${hostname} (tests stay on this machine)`),
      { code: 'ENOTFOUND', hostname },
    );
    process.nextTick(callback, error);
  };
  dns.lookup = guarded as typeof dns.lookup;
  return {
    refused: () => [...refused],
    restore() {
      dns.lookup = real;
    },
  };
}
