import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const MAX_CHARS = 300;

/**
 * A failure in a few words, for a reason the log, `doctor` and the model read: an HTTP
 * status first, a closed connection as what it means, anything a server sent cut short.
 * `redact` runs before the cut: a secret cut in half would escape it.
 */
export function describeError(
  error: unknown,
  redact: (text: string) => string = (text) => text,
): string {
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return 'the server exited';
  if (error instanceof StreamableHTTPError && error.code !== undefined)
    return short(
      redact(`HTTP ${error.code}: ${error.message.replace(/^Streamable HTTP error: /, '')}`),
    );
  return short(redact(error instanceof Error ? error.message : String(error)));
}

const short = (text: string) => (text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text);
