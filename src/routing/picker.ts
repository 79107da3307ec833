import { encodeButton } from '../core/button-data.ts';
import type { OutboundText } from '../outbound/compose.ts';
import type { Pack } from '../packs/loader.ts';

/** The pack picker: one button per pack (a `pack` button, see core/button-data.ts). */
export function pickerMessage(packs: readonly Pack[], intro?: string): OutboundText {
  return {
    text: intro ?? 'Which pack should answer here?',
    format: 'plain',
    keyboard: packs.map((p) => [
      { text: p.displayName, data: encodeButton({ type: 'pack', pack: p.name }) },
    ]),
  };
}
