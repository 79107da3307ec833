import type { pino } from 'pino';
import type { RetryPolicy } from '../agent/retry.ts';
import type { Clock } from '../core/clock.ts';
import type { ChatModel } from '../core/ports.ts';
import type { McpHub } from '../mcp/types.ts';
import type { OutboxDeps } from '../outbound/outbox.ts';
import type { Resolve, WebLimits } from '../tools/web/guarded-get.ts';
import type { ModelCatalog } from '../usage/catalog.ts';

export interface CoreOptions {
  clock?: Clock;
  /** Where logs go; stdout when not given. */
  logDestination?: pino.DestinationStream;
  /** History size (estimated tokens) above which a session is compacted. */
  historyBudgetTokens?: number;
  /** Retries of a failing model call (tests shorten the waits). */
  modelRetry?: RetryPolicy;
  /** How long shutdown waits for running turns and outboxes (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * The chat model instead of the configured one: the turn stages' tests script it in
   * process, with no HTTP.
   */
  chatModel?: ChatModel;
  /** web_fetch's resolver and limits (tests resolve names themselves and shorten the limits). */
  web?: { resolve?: Resolve; limits?: Partial<WebLimits> };
  /** Outbox timings (tests shorten the retry waits). */
  outbox?: Pick<OutboxDeps, 'retryDelaysMs' | 'stallDelaysMs'>;
  /** The model catalog, when the caller already read it (else read from SATCHEL_MODELS). */
  catalog?: ModelCatalog;
  /** The MCP hub instead of the real one (the turn stages' tests fake it in process). */
  mcpHub?: McpHub;
  /** An edge's ingress stopped for good (Telegram refused the token, or another instance polls). */
  onFatal?: (error: unknown) => void;
}
