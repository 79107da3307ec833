import { isProvider, type Provider } from './registry.ts';

/**
 * Reads a model setting: `provider:model`, or a bare model name for `provider`. Only a known
 * provider name counts as a prefix, so a model name with a colon in it (`llava:13b` on an
 * OpenAI-compatible server) stays whole.
 */
export function parseModelRef(
  value: string,
  provider: Provider,
): { provider: Provider; model: string } {
  const colon = value.indexOf(':');
  const prefix = value.slice(0, colon);
  if (colon > 0 && isProvider(prefix) && colon < value.length - 1)
    return { provider: prefix, model: value.slice(colon + 1) };
  return { provider, model: value };
}
