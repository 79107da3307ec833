import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import type { CliIo } from '../core/cli-io.ts';
import type { ModelCatalog } from '../usage/catalog.ts';
import { loadModelCatalog } from '../usage/catalog-file.ts';

const catalogEnv = envSchema.pick({ SATCHEL_HOME: true, SATCHEL_MODELS: true });

/**
 * The catalog as `npm start` would build it, from the environment (and `.env` in the
 * working directory), for `satchel models` and `satchel usage`. Throws a ConfigError when
 * the owner's file is invalid.
 */
export function cliCatalog(io: Pick<CliIo, 'env' | 'cwd'>): ModelCatalog {
  const env = catalogEnv.parse(withEnvFile(io.env, io.cwd));
  const home = path.resolve(io.cwd, env.SATCHEL_HOME);
  return loadModelCatalog({
    models: {
      file: path.resolve(io.cwd, env.SATCHEL_MODELS ?? path.join(home, 'models.yaml')),
      required: env.SATCHEL_MODELS !== undefined,
    },
  });
}
