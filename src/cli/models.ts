import { ConfigError } from '../core/errors.ts';
import type { CatalogEntry, ModelCatalog } from '../usage/catalog.ts';
import { noMoreThan, parseCommandArgs } from './args.ts';
import type { CliCommand } from './command.ts';
import { modelsInfo } from './help.ts';
import { table } from './table.ts';

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
    const { cliCatalog } = await import('./catalog.ts');
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
