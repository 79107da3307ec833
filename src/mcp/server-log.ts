import type { Logger } from '../core/ports.ts';
import type { McpConnection } from './connection.ts';
import { describeError } from './describe-error.ts';
import type { Flood } from './flood-meter.ts';

/** How long a closed server's last stderr lines are waited for (they name the reason). */
const STDERR_WAIT_MS = 1000;

/** `reason`, with the last line the server wrote on stderr (usually the cause) when there is one. */
export function withStderr(reason: string, connection: McpConnection | undefined): string {
  const line = connection?.stderr?.lastLine();
  return line ? `${reason} (stderr: ${line})` : reason;
}

/** Why a start failed, once a closed server's last stderr lines are in. */
export async function startFailure(
  connection: McpConnection | undefined,
  cause: unknown,
  redact: (text: string) => string,
): Promise<string> {
  if (connection?.isClosed()) await connection.stderrDrained(STDERR_WAIT_MS);
  return withStderr(`it could not be started: ${describeError(cause, redact)}`, connection);
}

export function logStartFailed(
  log: Logger,
  connection: McpConnection | undefined,
  why: string,
  retryInMs: number | undefined,
): void {
  log.warn(
    { event: 'mcp_start_failed', reason: why, stderr: connection?.stderr?.text(), retryInMs },
    'MCP server failed to start',
  );
}

/**
 * The exit line, once the server's last stderr lines are in. `why` is this exit's own
 * reason: a start that fails meanwhile changes the runner's reason, not what this line says.
 */
export function logExit(
  log: Logger,
  connection: McpConnection,
  why: () => string,
  restartInMs: number,
): void {
  void connection.stderrDrained(STDERR_WAIT_MS).then(() =>
    log.warn(
      {
        event: 'mcp_server_exited',
        pid: connection.pid(),
        reason: why(),
        transportError: connection.lastError(),
        stderr: connection.stderr?.text(),
        restartInMs,
      },
      'MCP server exited',
    ),
  );
}

export function logFlooding(
  log: Logger,
  connection: McpConnection,
  flood: Flood,
  restartInMs: number,
): void {
  log.warn(
    {
      event: 'mcp_server_flooding',
      pid: connection.pid(),
      kind: flood.kind,
      perSecond: flood.perSecond,
      limit: flood.limit,
      seconds: flood.seconds,
      restartInMs,
    },
    'MCP server flooded satchel; stopped',
  );
}
