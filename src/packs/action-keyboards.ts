import { randomBytes } from 'node:crypto';
import { encodeButton } from '../core/button-data.ts';
import type { Clock } from '../core/clock.ts';
import type { InlineButton } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { KeyboardRepo, KeyboardRow } from '../store/keyboard-repo.ts';
import type { ActionButton } from './action-run.ts';
import type { Params } from './actions.ts';

/** Where a keyboard is shown and what it acts on. */
export interface KeyboardPlace {
  pack: string;
  /** The home its actions use (`homeKey`). */
  home: string;
  address: Address;
}

/** A keyboard found by a press: its place and what each button runs. */
export interface StoredKeyboard extends KeyboardPlace {
  id: string;
  buttons: { label: string; action: string; params: Params }[];
}

/** How long a keyboard nobody pressed keeps working. */
export const KEYBOARD_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The keyboards of pack actions (SPEC §3), kept in the core database (`action_keyboards`):
 * a button's data names its keyboard and its place in it (`act:<id>:<n>`, a few bytes), and
 * the row holds the action and parameters it runs, so a press works after a restart. A
 * keyboard lives while its message shows it: a press that replaces the message's keyboard
 * removes it (a second tap on the old one hears it expired), one nobody pressed goes after
 * KEYBOARD_DAYS.
 */
export function createActionKeyboards(deps: { repo: KeyboardRepo; clock: Clock }) {
  const { repo, clock } = deps;
  return {
    /**
     * Stores `lines` as one keyboard at `place` and returns it as the channel's buttons.
     * Call it in the transaction that writes the message where there is one, so both are
     * kept or neither (a keyboard whose message was never written is only a row that ages).
     */
    mint(place: KeyboardPlace, lines: readonly ActionButton[][]): InlineButton[][] {
      const now = clock.now();
      repo.pruneBefore(now - KEYBOARD_DAYS * DAY_MS);
      const id = randomBytes(6).toString('base64url');
      const buttons = lines.flat().map(({ label, action, params }) => ({ label, action, params }));
      repo.insert({
        id,
        pack: place.pack,
        home: place.home,
        platform: place.address.platform,
        chatId: place.address.chatId,
        threadId: place.address.threadId ?? '',
        buttons: JSON.stringify(buttons),
        createdAt: now,
      });
      let n = 0;
      return lines.map((line) =>
        line.map(({ label }) => ({
          text: label,
          data: encodeButton({ type: 'action', keyboard: id, button: n++ }),
        })),
      );
    },

    /** The keyboard `id`, or undefined when it is gone (replaced, or too old). */
    find(id: string): StoredKeyboard | undefined {
      const row = repo.get(id);
      return row && storedOf(row);
    },

    /** Removes a keyboard its message no longer shows. */
    remove(id: string): void {
      repo.remove(id);
    },
  };
}

export type ActionKeyboards = ReturnType<typeof createActionKeyboards>;

function storedOf(row: KeyboardRow): StoredKeyboard {
  return {
    id: row.id,
    pack: row.pack,
    home: row.home,
    address: {
      platform: row.platform,
      chatId: row.chatId,
      ...(row.threadId === '' ? {} : { threadId: row.threadId }),
    },
    buttons: JSON.parse(row.buttons) as StoredKeyboard['buttons'],
  };
}
