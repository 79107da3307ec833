import { type ChildProcess, spawn } from 'node:child_process';

/**
 * The guard for the one case satchel cannot clean up after itself: being killed with
 * SIGKILL (the OOM killer, `kill -9`). A server then sees EOF on stdin; the SDK's own
 * stdio server exits on it only when nothing else keeps it running (a call in flight, a
 * timer), and a server in another language may ignore it. So a tiny `sh` (about a MB) holds
 * the other end of a pipe from satchel and the list of server pids: when the pipe closes
 * without an empty list written last — satchel died — it sends SIGTERM to those still on the
 * list, then SIGKILL two seconds later. Each signal goes to the server's process group (each
 * server runs in its own, see stdio-transport.ts), so what a server started dies with it;
 * a process that left the group (`setsid`) is beyond reach. One per hub, started with the
 * first stdio server, in its own process group so a Ctrl-C in the terminal does not reach it
 * before satchel's own shutdown has run. Not on Windows (no `sh`); there the servers rely on
 * EOF.
 */
const SCRIPT = [
  'pids=',
  'while IFS= read -r line; do pids=$line; done',
  '[ -z "$pids" ] && exit 0',
  // `-s NAME --`: the list holds negative ids (process groups), which dash reads only so.
  'kill -s TERM -- $pids 2>/dev/null',
  'sleep 2',
  'kill -s KILL -- $pids 2>/dev/null',
  'exit 0',
].join('\n');

export interface OrphanGuard {
  /** The server processes now running (each the leader of its process group). */
  track(pid: number): void;
  untrack(pid: number): void;
  /** Every server has stopped: the guard exits. */
  close(): void;
}

export function createOrphanGuard(): OrphanGuard {
  const pids = new Set<number>();
  let guard: ChildProcess | undefined;
  let closed = false;
  const write = () => {
    if (closed || process.platform === 'win32') return;
    if (!guard) guard = startGuard();
    guard.stdin?.write(`${[...pids].map((pid) => -pid).join(' ')}\n`);
  };
  return {
    track(pid) {
      pids.add(pid);
      write();
    },
    untrack(pid) {
      if (pids.delete(pid)) write();
    },
    close() {
      if (closed) return;
      closed = true;
      pids.clear();
      guard?.stdin?.end('\n');
    },
  };
}

function startGuard(): ChildProcess {
  const child = spawn('/bin/sh', ['-c', SCRIPT], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  // satchel's exit must not wait for the guard, nor fail when it is gone.
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}
