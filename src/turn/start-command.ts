import { type OutboundText, plain } from '../outbound/compose.ts';
import type { PackRegistry } from '../packs/registry.ts';
import { pickerMessage } from '../routing/picker.ts';

const HELLO = 'Hi! I am satchel, your personal assistant.';

/**
 * `/start` (SPEC §5): a greeting naming the pack that answers here (the bound one, else
 * DEFAULT_PACK) and how /pack switches. The picker only when several packs are installed
 * and none answers yet (DEFAULT_PACK empty, nothing bound).
 */
export function startText(
  packs: Pick<PackRegistry, 'list' | 'get'>,
  active: string | undefined,
): OutboundText {
  const all = packs.list();
  if (all.length >= 2 && !active)
    return pickerMessage(all, `${HELLO} Which pack should I use here?`);
  const pack = active ? packs.get(active) : undefined;
  if (!pack)
    return plain(`${HELLO} Send me a message to get started, or /help to see what I can do.`);
  const switches = all.length >= 2 ? ' Send /pack to switch to another pack.' : '';
  return plain(
    `${HELLO} ${pack.displayName} answers here: ${pack.description}\n\n` +
      `Send me a message to get started, or /help to see what I can do.${switches}`,
  );
}
