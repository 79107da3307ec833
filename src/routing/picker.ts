import type { OutboundText } from '../outbound/compose.ts';
import type { Pack } from '../packs/loader.ts';

const PICK = 'pack:';

/** The pack picker: one button per pack; callback data `pack:<name>` (≤ 64 bytes). */
export function pickerMessage(packs: readonly Pack[], intro?: string): OutboundText {
  return {
    text: intro ?? 'Which pack should answer here?',
    format: 'plain',
    keyboard: packs.map((p) => [{ text: p.displayName, data: `${PICK}${p.name}` }]),
  };
}

/** The pack name in a picker button's data, or undefined for other buttons. */
export function pickedPack(data: string): string | undefined {
  return data.startsWith(PICK) ? data.slice(PICK.length) : undefined;
}
