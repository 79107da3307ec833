import type { CoreConfig } from '../config/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';

/** Why the built-in default pack does not answer new conversations (doctor and the log). */
export function missingDefaultMessage(name: string, loaded: readonly string[]): string {
  return (
    `the default pack "${name}" is not loaded (packs: ${loaded.join(', ') || 'none'}): ` +
    'a new conversation gets the pack picker. Add it to SATCHEL_PACKS, or set DEFAULT_PACK ' +
    'to one of the loaded packs (empty: always the picker).'
  );
}

/**
 * The pack a conversation with no binding starts with (SPEC §1, §3), or undefined for the
 * picker: DEFAULT_PACK when it names a loaded pack; none when it is empty. Set to a name of
 * no loaded pack, it stops the start (a ConfigError naming the variable); the built-in
 * default `assistant` that is not loaded falls back to the picker with a warning
 * (`default_pack_missing`), since the owner never asked for it.
 */
export function resolveDefaultPack(
  setting: CoreConfig['defaultPack'],
  loaded: readonly string[],
  log: Logger,
): string | undefined {
  if (setting.name === '') return undefined;
  if (loaded.includes(setting.name)) return setting.name;
  if (setting.explicit)
    throw new ConfigError(
      `Invalid configuration:\n- DEFAULT_PACK names "${setting.name}", which is not a loaded ` +
        `pack (loaded: ${loaded.join(', ') || 'none'}): set it to one of them, or leave it ` +
        'empty for the pack picker',
    );
  // With one pack or none there is no picker to fall back to: nothing worth a warning.
  if (loaded.length >= 2)
    log.warn(
      { event: 'default_pack_missing', pack: setting.name },
      missingDefaultMessage(setting.name, loaded),
    );
  return undefined;
}
