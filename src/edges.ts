import { type Config, parseConfig } from './config/config.ts';
import type { EdgeConfig, EdgeFactory, EdgeModule } from './core/edge.ts';
import { ConfigError } from './core/errors.ts';
import { telegram } from './telegram/edge.ts';
import { web } from './web/edge.ts';

/**
 * The edges satchel runs on, each in its own folder: a new channel is one more entry here.
 * Their ingresses are readied, started and stopped in this order. Apart from app.ts so that
 * `satchel doctor`, which runs the edges' checks, loads the edges without the whole app.
 */
export const EDGES: readonly EdgeModule[] = [telegram, web];

/**
 * Each listed edge, made from the configuration: its variables are read and checked here.
 * Throws one ConfigError naming every bad variable of every edge.
 */
export function edgesOf(config: EdgeConfig, modules: readonly EdgeModule[] = EDGES): EdgeFactory[] {
  const problems: string[] = [];
  const made = modules.flatMap((edge) => {
    try {
      return [edge.create(config)];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.message.split('\n').slice(1));
      return [];
    }
  });
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return made;
}

/**
 * The configuration and the listed edges, read from `env` together: one ConfigError names
 * every bad variable, the core's and each edge's, in one round (an edge whose variables are
 * read while the core's are bad is made only to be checked, and dropped).
 */
export function configure(
  env: Readonly<Record<string, string | undefined>>,
  modules: readonly EdgeModule[] = EDGES,
): { config: Config; edges: EdgeFactory[] } {
  const problems: string[] = [];
  const linesOf = (error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.message.split('\n').slice(1));
  };
  let config: Config | undefined;
  try {
    config = parseConfig(env);
  } catch (error) {
    linesOf(error);
  }
  let edges: EdgeFactory[] = [];
  try {
    edges = edgesOf(config ?? { home: '', groupReply: 'mention', env: setOnly(env) }, modules);
  } catch (error) {
    linesOf(error);
  }
  if (!config || problems.length > 0)
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return { config, edges };
}

const setOnly = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/**
 * What a turn on each listed edge counts as in the ledger's recent turns (`web`, else
 * `chat`): `satchel usage` reads the ledger without making the edges.
 */
export const turnSourceOf =
  (modules: readonly EdgeModule[] = EDGES) =>
  (platform: string): 'chat' | 'web' =>
    modules.find((edge) => edge.platform === platform)?.source ?? 'chat';

/** Every variable the listed edges read, for the `.env` checks. */
export const edgeVariables = (modules: readonly EdgeModule[] = EDGES): string[] =>
  modules.flatMap((edge) => edge.variables);
