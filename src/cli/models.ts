import path from 'node:path';
import { withEnvFile } from '../config/env-file.ts';
import { envSchema } from '../config/schema.ts';
import { ConfigError } from '../core/errors.ts';
import type { CatalogEntry, ModelCatalog } from '../usage/catalog.ts';
import { loadModelCatalog } from '../usage/catalog-file.ts';
import { noMoreThan, parseCommandArgs } from './args.ts';
import type { CliCommand, CliIo } from './command.ts';
import { modelsInfo } from './help.ts';
import { table } from './usage-table.ts';

const catalogEnv = envSchema.pick({ SATCHEL_HOME: true, SATCHEL_MODELS: true });

/**
 * The catalog as `npm start` would build it, from the environment (and `.env` in the
 * working directory). Throws a ConfigError when the owner's file is invalid.
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

const money = (n: number | undefined) => (n === undefined ? '–' : `$${n}`);
const count = (n: number | undefined) => (n === undefined ? '–' : n.toLocaleString('en-US'));

function row({ provider, model, entry, source }: CatalogEntry): string[] {
  return [
    `${provider}:${model}`,
    money(entry.tokens?.input),
    money(entry.tokens?.cachedInput),
    money(entry.tokens?.output),
    money(entry.audioPerHour),
    money(entry.perCall),
    money(entry.ttsPerMillionChars),
    entry.images ? 'yes' : 'no',
    count(entry.context),
    source,
  ];
}

/** `satchel models`: the effective catalog, one line per model, with its source. */
export const modelsCommand: CliCommand = {
  ...modelsInfo,
  async run(args, io) {
    noMoreThan(parseCommandArgs(args, {}).positionals, 0);
    let catalog: ModelCatalog;
    try {
      catalog = cliCatalog(io);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.stderr.write(`satchel models: ${error.message}\n`);
      return 1;
    }
    const headers = [
      'model',
      'input',
      'cached',
      'output',
      'audio/h',
      'per call',
      'tts/M chars',
      'images',
      'context',
      'source',
    ];
    io.stdout.write(
      [
        `Model catalog (token prices in USD per million tokens) · your file: ${catalog.file}`,
        '',
        ...table(headers, catalog.entries().map(row), [6, 8]),
        '',
      ].join('\n'),
    );
    return 0;
  },
};
