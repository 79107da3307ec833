import type { Logger } from '../core/ports.ts';

/** What every chat adapter is made with; an adapter adds what only it needs. */
export interface ChatModelOptions {
  apiKey?: string | undefined;
  /** Where its API is (each adapter says what the SDK adds); the SDK's default when unset. */
  baseUrl?: string | undefined;
  model: string;
  /** How long a call may go without progress (no byte, no chunk) before it is given up. */
  timeoutMs: number;
  /** The model takes images inline (the model catalog says); text-only when unset. */
  acceptsImages?: boolean;
  /** Where a tool left out of the requests (its schema cannot be converted) is reported. */
  log?: Logger | undefined;
}
