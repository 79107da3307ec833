import { providerSpec } from './registry.ts';

/** What to tell the owner when a provider refuses its key, and what to tell the user. */
export interface KeyRefusal {
  /** The owner's next step, naming the variable to check (logged with the error). */
  hint: string;
  /** Shown in the chat: short, and names the variable too (the owner reads it). */
  userMessage: string;
}

/**
 * The owner's next step when `provider` answered `status` because of its key: 401 (or
 * `invalidKey`, for a provider that says so with another status) means the key is wrong or
 * revoked; 403 means the key may not do this (the model, the project, the region).
 * The variables are the provider's in registry.ts. Undefined for any other status, and for a
 * provider satchel does not know (another OpenAI-compatible API's name).
 */
export function keyRefusal(
  provider: string,
  status: number | undefined,
  invalidKey = false,
): KeyRefusal | undefined {
  const vars = providerSpec(provider)?.env;
  if (!vars) return undefined;
  if (status === 401 || invalidKey)
    return {
      hint:
        `check ${vars.apiKey}: ${provider} refused it (a typo, or a revoked or expired key), ` +
        `and ${vars.baseUrl} if it points at another server`,
      userMessage: `The API key was refused by ${provider}, so I cannot answer — the owner should check ${vars.apiKey} and run \`npx satchel doctor\`.`,
    };
  if (status === 403)
    return {
      hint: `check that the key in ${vars.apiKey} may use this model (its project, plan or region)`,
      userMessage: `The API key may not use this model at ${provider}, so I cannot answer — the owner should check ${vars.apiKey} and the model setting, and run \`npx satchel doctor\`.`,
    };
  return undefined;
}
