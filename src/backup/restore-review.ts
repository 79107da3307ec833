import { tooLarge, YAML_LIMITS } from '../core/yaml-limits.ts';
import { readYaml } from '../core/yaml-source.ts';
import { describeIssue, type Manifest, manifestSchema } from '../packs/manifest.ts';
import { ArchiveError, type ContentReader } from './archive.ts';
import type { BackupManifest } from './manifest.ts';

/**
 * What a restore shows its owner before it writes anything (SPEC §11): the installed packs
 * a backup brings, which are new code on this machine, and the YAML files satchel will read
 * from it, each within SPEC §14's limits.
 */

/** An installed pack in a backup: its manifest, or why satchel would skip it. */
export interface RestoredPack {
  name: string;
  manifest: Manifest | undefined;
  /** Why satchel would not load it (no pack.yml, or one that is not valid). */
  problem: string | undefined;
}

const INSTALLED = /^installed-packs\/([^/]+)\//;
const MANIFEST = /^installed-packs\/([^/]+)\/pack\.yml$/;

/** A file of the backup that satchel reads as YAML: the owner's catalog, a pack's .yml. */
const isYaml = (name: string) =>
  name === 'models.yaml' || (INSTALLED.test(name) && /\.ya?ml$/.test(name));

/** A file's place and a limit it is past, as a sentence's subject and predicate. */
const past = (name: string, line: number | undefined, message: string) =>
  `${name}${line === undefined ? '' : ` line ${line}`} ${message}`;

/**
 * The YAML files the manifest lists past YAML_LIMITS.bytes, as a reason to refuse the
 * backup without reading it; undefined when there is none.
 */
export function oversizedYaml(manifest: BackupManifest): string | undefined {
  const file = manifest.files.find((f) => isYaml(f.path) && f.size > YAML_LIMITS.bytes);
  return file ? `${file.path} ${tooLarge(file.size)}` : undefined;
}

/**
 * Reads, in the archive's first pass, each YAML file the backup holds: one past the limits
 * refuses the archive, and each installed pack's pack.yml is kept for the review.
 */
export function createRestoreReview(manifest: BackupManifest): {
  reader: ContentReader;
  packs(): RestoredPack[];
} {
  const names = [
    ...new Set(manifest.files.flatMap((f) => INSTALLED.exec(f.path)?.[1] ?? [])),
  ].sort();
  const found = new Map<string, Pick<RestoredPack, 'manifest' | 'problem'>>();
  const reader: ContentReader = {
    wants: ({ path }) => isYaml(path),
    read({ path }, content) {
      const source = readYaml(content.toString('utf8'));
      if (source.refused)
        throw new ArchiveError(past(path, source.refused.line, source.refused.message));
      const pack = MANIFEST.exec(path)?.[1];
      if (pack) found.set(pack, manifestOf(source));
    },
  };
  const packs = () =>
    names.map((name) => ({
      name,
      ...(found.get(name) ?? {
        manifest: undefined,
        problem: 'it has no pack.yml, so satchel will skip it',
      }),
    }));
  return { reader, packs };
}

function manifestOf(
  source: ReturnType<typeof readYaml>,
): Pick<RestoredPack, 'manifest' | 'problem'> {
  const [error] = source.errors;
  if (error && source.value === undefined)
    return {
      manifest: undefined,
      problem: `its pack.yml is not valid YAML (${error.message}), so satchel will skip it`,
    };
  const parsed = manifestSchema.safeParse(source.value);
  if (parsed.success) return { manifest: parsed.data, problem: undefined };
  const first = describeIssue(parsed.error.issues[0]!, source.value);
  const what = first.field ? `${first.field}: ${first.problem}` : first.problem;
  return {
    manifest: undefined,
    problem: `its pack.yml is not valid (${what}), so satchel will skip it`,
  };
}
