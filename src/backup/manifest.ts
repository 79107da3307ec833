import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** The archive's first entry: what it holds, so a restore can prove it got all of it. */
export const MANIFEST_NAME = 'satchel-backup.json';
export const MANIFEST_FORMAT = 'satchel-backup';
export const MANIFEST_VERSION = 1;

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT;
  version: number;
  /** ISO 8601. */
  created_at: string;
  /** Relative paths inside SATCHEL_HOME, with their size and SHA-256. */
  files: { path: string; size: number; sha256: string }[];
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Reads a manifest; throws when it is not one satchel wrote (or a newer one). */
export function parseManifest(text: string): BackupManifest {
  const value = JSON.parse(text) as Partial<BackupManifest>;
  if (value.format !== MANIFEST_FORMAT || !Array.isArray(value.files))
    throw new Error(`${MANIFEST_NAME} is not a satchel backup manifest`);
  if (typeof value.version !== 'number' || value.version > MANIFEST_VERSION)
    throw new Error(
      `this backup was written by a newer satchel (format ${value.version}); update satchel first`,
    );
  return value as BackupManifest;
}
