import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { envSchema } from './schema.ts';

/**
 * `env` with the variables of `<cwd>/.env` under it, as `npm start` sees them: a variable
 * set in the environment wins over the file. Reads the file only; changes nothing.
 */
export function withEnvFile(
  env: Record<string, string | undefined>,
  cwd: string,
): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  if (!existsSync(file)) return { ...env };
  const fromFile = parseEnv(readFileSync(file, 'utf8'));
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}

/**
 * SATCHEL_HOME as an absolute path (relative to `cwd`), for commands that need only the
 * data directory (`satchel backup`, `satchel restore`) and not a whole valid configuration.
 */
export function satchelHome(env: Record<string, string | undefined>, cwd: string): string {
  return path.resolve(cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
}
