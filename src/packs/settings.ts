import type { Manifest } from './manifest.ts';

/** The environment variables named `SATCHEL_PACK_*`, as the config layer read them. */
export type PackSettingsEnv = Readonly<Record<string, string>>;

/** One pack's settings, resolved from the environment. */
export interface ResolvedSettings {
  /** Each declared setting that is set, by its declared name. */
  values: Readonly<Record<string, string>>;
  /** The variables of required settings that are unset, in declaration order. */
  missing: readonly string[];
  /** The values of secret settings: the redactor removes them from logs and stored text. */
  secrets: readonly string[];
}

/** `SATCHEL_PACK_<PACK>_<NAME>`: upper case, `-` as `_` (`vault`'s `api-token` → `SATCHEL_PACK_VAULT_API_TOKEN`). */
export function settingVariable(pack: string, name: string): string {
  const part = (s: string) => s.toUpperCase().replaceAll('-', '_');
  return `SATCHEL_PACK_${part(pack)}_${part(name)}`;
}

/** Reads a pack's declared settings from `env`; an empty value counts as unset. */
export function resolveSettings(
  manifest: Pick<Manifest, 'name' | 'settings'>,
  env: PackSettingsEnv,
): ResolvedSettings {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  const secrets: string[] = [];
  for (const setting of manifest.settings) {
    const variable = settingVariable(manifest.name, setting.name);
    const value = env[variable];
    if (value === undefined || value === '') {
      if (setting.required) missing.push(variable);
      continue;
    }
    values[setting.name] = value;
    if (setting.secret) secrets.push(value);
  }
  return { values, missing, secrets };
}

/** The message a pack skipped for missing settings logs, and doctor shows. */
export function missingSettingsMessage(pack: string, missing: readonly string[]): string {
  const list = missing.join(', ');
  return `pack "${pack}" needs ${missing.length === 1 ? 'the setting' : 'settings'} ${list}: set ${missing.length === 1 ? 'it' : 'them'} in the environment (.env)`;
}

/**
 * The packs whose required settings are all set, each with its values; the others skipped
 * with the variables they miss; and every secret value, for the redactor.
 */
export function packSettings<
  P extends { name: string; manifest: Pick<Manifest, 'name' | 'settings'> },
>(packs: readonly P[], env: PackSettingsEnv) {
  const served: P[] = [];
  const skipped: { pack: P; missing: readonly string[] }[] = [];
  const values = new Map<string, Readonly<Record<string, string>>>();
  const secrets: string[] = [];
  for (const pack of packs) {
    const resolved = resolveSettings(pack.manifest, env);
    secrets.push(...resolved.secrets);
    if (resolved.missing.length > 0) {
      skipped.push({ pack, missing: resolved.missing });
      continue;
    }
    served.push(pack);
    values.set(pack.name, resolved.values);
  }
  return { packs: served, skipped, values, secrets };
}
