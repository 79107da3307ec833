import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Database } from '../store/sqlite.ts';
import { ArchiveError, sha256Of, writeArchive } from './archive.ts';
import {
  type BackupManifest,
  isBackupPath,
  MANIFEST_FORMAT,
  MANIFEST_NAME,
  MANIFEST_VERSION,
} from './manifest.ts';

/** The owner's model catalog where satchel looks for it by default (SATCHEL_MODELS unset). */
const MODELS_FILE = 'models.yaml';
/** Where `satchel pack add` installs packs, inside SATCHEL_HOME. */
const INSTALLED = 'installed-packs';

/** A pack's notes, beside its database and files/. */
const PACK_NOTES = ['USER.md', 'MEMORY.md'];

export interface BackupResult {
  archive: string;
  /** The owner's model catalog when it lies outside SATCHEL_HOME: not in the archive. */
  modelsLeftOut?: string;
  /** Relative paths inside SATCHEL_HOME, in archive order. */
  files: string[];
  bytes: number;
  packs: string[];
}

export class BackupError extends Error {}

/**
 * Writes `archive` (a .tar.gz) with a consistent snapshot of SATCHEL_HOME while satchel may
 * be running: `satchel.db` and each pack's `pack.db` through SQLite's online backup API
 * (each copied in one step, so each is a single point in time even while the bot writes),
 * each pack's USER.md, MEMORY.md and files/, the packs `pack add` installed
 * (installed-packs/), the owner's model catalog when it is SATCHEL_HOME/models.yaml (`models`
 * names the catalog in use: SATCHEL_MODELS or that default), and documents kept without a pack
 * (media/files/). Not the cache of photos (media/) or logs. A manifest with every file's
 * size and SHA-256 comes first. The archive appears under its name only when complete.
 * Each database is a consistent snapshot of itself; they are taken one after another.
 */
export async function createBackup(options: {
  home: string;
  archive: string;
  now?: Date;
  models?: string;
}) {
  const { home, archive } = options;
  if (!(await exists(path.join(home, 'satchel.db'))))
    throw new BackupError(`${home} holds no satchel data (no satchel.db): check SATCHEL_HOME`);
  // A folder made here (SATCHEL_HOME/backups) is its owner's alone, as the archive is.
  await mkdir(path.dirname(archive), { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(path.dirname(archive), '.satchel-backup-'));
  try {
    const { files, packs } = await stage(home, staging);
    const models = path.resolve(options.models ?? path.join(home, MODELS_FILE));
    const modelsLeftOut =
      models !== path.resolve(home, MODELS_FILE) && (await exists(models)) ? models : undefined;
    const odd = files.find((file) => !isBackupPath(file));
    // Refused here rather than written into an archive that a restore would refuse.
    if (odd !== undefined)
      throw new BackupError(`${JSON.stringify(odd)} cannot be backed up: rename it, then retry`);
    const manifest: BackupManifest = {
      format: MANIFEST_FORMAT,
      version: MANIFEST_VERSION,
      created_at: (options.now ?? new Date()).toISOString(),
      files: await Promise.all(
        files.map(async (file) => {
          const full = path.join(staging, file);
          return { path: file, size: (await stat(full)).size, sha256: await sha256Of(full) };
        }),
      ),
    };
    await writeFile(path.join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
    // Readable by its owner only: a backup holds every conversation.
    await writeArchive(archive, staging, [MANIFEST_NAME, ...files]).catch((error: unknown) => {
      throw error instanceof ArchiveError ? new BackupError(error.message) : error;
    });
    return {
      archive,
      files,
      bytes: (await stat(archive)).size,
      packs,
      ...(modelsLeftOut ? { modelsLeftOut } : {}),
    } satisfies BackupResult;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Copies what the backup holds into `staging`: databases by snapshot, the rest as files. */
async function stage(home: string, staging: string) {
  const files: string[] = [];
  await snapshotDb(path.join(home, 'satchel.db'), path.join(staging, 'satchel.db'));
  files.push('satchel.db');
  const packs: string[] = [];
  for (const pack of await subdirectories(path.join(home, 'packs'))) {
    packs.push(pack);
    // Every home of the pack (SPEC §19): the owner's, then each person's and group's.
    for (const where of await homesOf(home, pack))
      files.push(...(await stageHome(home, staging, where)));
  }
  // What `pack add` installed: `pack list` after a restore shows them again. Its
  // half-copied `.name.partial` / `.name.old` folders are not packs.
  for (const pack of await subdirectories(path.join(home, INSTALLED)))
    if (!pack.startsWith('.'))
      files.push(...(await copyTree(home, staging, `${INSTALLED}/${pack}`)));
  if (await isFile(path.join(home, MODELS_FILE))) {
    await copyFile(path.join(home, MODELS_FILE), path.join(staging, MODELS_FILE));
    files.push(MODELS_FILE);
  }
  files.push(...(await copyTree(home, staging, 'media/files')));
  return { files, packs };
}

/** The homes of a pack, relative to SATCHEL_HOME: `packs/<name>`, its `people/*` and `groups/*`. */
async function homesOf(home: string, pack: string): Promise<string[]> {
  const base = `packs/${pack}`;
  const homes = [base];
  for (const kind of ['people', 'groups'])
    for (const id of await subdirectories(path.join(home, base, kind)))
      homes.push(`${base}/${kind}/${id}`);
  return homes;
}

/** One home's database (by snapshot), notes and files into `staging`; their relative paths. */
async function stageHome(home: string, staging: string, where: string): Promise<string[]> {
  const files: string[] = [];
  const from = path.join(home, where);
  const to = path.join(staging, where);
  await mkdir(to, { recursive: true });
  if (await exists(path.join(from, 'pack.db'))) {
    await snapshotDb(path.join(from, 'pack.db'), path.join(to, 'pack.db'));
    files.push(`${where}/pack.db`);
  }
  for (const note of PACK_NOTES) {
    if (!(await exists(path.join(from, note)))) continue;
    await copyFile(path.join(from, note), path.join(to, note));
    files.push(`${where}/${note}`);
  }
  files.push(...(await copyTree(home, staging, `${where}/files`)));
  return files;
}

/**
 * SQLite's online backup of `source` into `target`, all pages in one step: one read
 * transaction, so the copy is the database as of one moment, whatever writes meanwhile.
 */
async function snapshotDb(source: string, target: string): Promise<void> {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(target, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  // A self-contained file: no WAL beside it, whatever the source's journal mode.
  const copy = new Database(target);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Copies the files under `home/relative` into `staging/relative`; their relative paths. */
async function copyTree(home: string, staging: string, relative: string): Promise<string[]> {
  const from = path.join(home, relative);
  if (!(await exists(from))) return [];
  const copied: string[] = [];
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const child = `${relative}/${entry.name}`;
    if (entry.isDirectory()) copied.push(...(await copyTree(home, staging, child)));
    else if (entry.isFile()) {
      await mkdir(path.join(staging, relative), { recursive: true });
      await copyFile(path.join(home, child), path.join(staging, child));
      copied.push(child);
    }
  }
  return copied.sort();
}

async function subdirectories(dir: string): Promise<string[]> {
  if (!(await exists(dir))) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
