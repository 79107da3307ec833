// Loaded with `node --import`: writes every module the process loads to the file named by
// SATCHEL_MODULE_LOG, one URL a line. ES modules are written as they load (a loader hook,
// module-log-hook.mjs); CommonJS ones, which `require` loads without that hook on Node 20
// (better-sqlite3 through createRequire), from require's cache as the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.SATCHEL_MODULE_LOG;
if (!file) throw new Error('module-log.mjs needs SATCHEL_MODULE_LOG');
register(new URL('./module-log-hook.mjs', import.meta.url), { data: { file } });

const { cache } = createRequire(import.meta.url);
process.on('exit', () => {
  const loaded = Object.keys(cache).map((name) => pathToFileURL(name).href);
  if (loaded.length > 0) appendFileSync(file, `${loaded.join('\n')}\n`);
});
