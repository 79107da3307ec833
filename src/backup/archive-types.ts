/** A refused or unreadable archive; the message names the entry and says why. */
export class ArchiveError extends Error {}

/** What an archive may hold. Every limit is checked on an entry's header, before its bytes. */
export interface ArchiveLimits {
  /** Entries (files and directories). */
  maxEntries: number;
  /** The size of one file. */
  maxEntryBytes: number;
  /** The sizes of all files together. */
  maxTotalBytes: number;
  /** Decompressed bytes per compressed byte (a zip bomb's signature); tar's default: 1000. */
  maxRatio?: number;
  /** The caller's own rule for an entry, checked on its header: a reason to refuse it, or undefined. */
  accept?(entry: ArchiveHeader): string | undefined;
}

export interface ArchiveHeader {
  path: string;
  type: 'file' | 'directory';
  size: number;
  /** Its place in the archive, from 0. */
  index: number;
}
