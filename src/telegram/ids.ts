/** The platform of Telegram's addresses, origins and outbox rows. */
export const TELEGRAM_PLATFORM = 'tg';

/**
 * Telegram's ids are numbers (chat ids fit in 52 bits, so a JS number holds them exactly); the
 * core carries every id as a string it never reads. These two are the only crossing: ids come
 * in as their decimal digits and go out to the Bot API as the numbers they were.
 */
export const idIn = (id: number): string => String(id);

export const idOut = (id: string): number => Number(id);
