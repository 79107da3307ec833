/** Buttons sent by `send_message`: pressing one sends its label as if the user typed it. */
const SAY = 'say:';

/** Callback data for a label, cut to Telegram's 64-byte limit on a character boundary. */
export function sayData(label: string): string {
  let data = `${SAY}${label}`;
  while (Buffer.byteLength(data) > 64) data = data.slice(0, -1);
  return data;
}

/** The label a `say:` button stands for, or undefined for other buttons. */
export function saidText(data: string): string | undefined {
  return data.startsWith(SAY) ? data.slice(SAY.length) : undefined;
}
