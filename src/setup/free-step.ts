import { ConfigError } from '../core/errors.ts';
import { createModelCatalog, type ModelCatalog, type OwnerCatalog } from '../usage/catalog.ts';
import { loadOwnerCatalog } from '../usage/catalog-file.ts';
import { freeModelsToWrite } from './free-models.ts';
import { localServer } from './local-server.ts';
import { SetupFailed, type SetupUi } from './ui.ts';

/** The owner's catalog as setup sees it, and the $0 entries it will add for a free server. */
export interface FreeCatalog {
  /** The catalog the menu and the price warning read: the owner's, $0 entries included. */
  catalog: ModelCatalog;
  /** The models written at $0 once `.env` is written (none for a server that is not free). */
  free: string[];
}

/**
 * Whether the server's models are free (SPEC §1): `--free` / `--not-free`, else for a
 * server on this machine or the local network the person's answer (yes by default; under
 * `--yes` it counts as free); a public server is not asked about. Reads the owner's catalog
 * (`file`), refusing an invalid one before anything is written.
 */
export async function freeCatalog(
  server: { provider: string; baseUrl: string | undefined; models: readonly string[] },
  given: boolean | undefined,
  deps: { ui: SetupUi; file: string },
): Promise<FreeCatalog> {
  const owner = readOwner(deps.file);
  const catalog = createModelCatalog(owner);
  const models = freeModelsToWrite(server.provider, server.models, catalog);
  // Nothing unpriced to write: nothing to ask.
  if (models.length === 0) return { catalog, free: [] };
  const where = localServer(server.baseUrl);
  const free = given ?? (where ? await askFree(server.baseUrl!, where, deps) : false);
  if (!free) return { catalog, free: [] };
  const entries = { ...owner.entries };
  for (const model of models)
    entries[`${server.provider}:${model}`] = {
      tokens: { input: 0, cachedInput: 0, output: 0 },
    };
  return { catalog: createModelCatalog({ file: owner.file, entries }), free: models };
}

async function askFree(
  baseUrl: string,
  where: string,
  deps: { ui: SetupUi; file: string },
): Promise<boolean> {
  const host = new URL(baseUrl).host;
  if (!deps.ui.prompter) {
    deps.ui.say(
      `${host} is on ${where}: its models count as free ($0, --not-free says otherwise).`,
    );
    return true;
  }
  return deps.ui.prompter.confirm(
    `${host} is on ${where}. Are its models free (written at $0 to ${deps.file}, so the packs' spend caps let them run)?`,
    true,
  );
}

function readOwner(file: string): OwnerCatalog {
  try {
    return loadOwnerCatalog(file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new SetupFailed(
      `your model catalog is invalid:\n${error.message.split('\n').slice(1).join('\n')}`,
      `Fix ${file} (or move it away), then run setup again.`,
    );
  }
}
