/** A bot token as it appears in Bot API URLs: `/bot<digits>:<secret>/`. */
const BOT_TOKEN_IN_URL = /\/bot\d+:[\w-]+/g;

/**
 * A function that removes secrets from text before it is stored or shown: every occurrence
 * of one of `secrets` (bot token, API keys), and any bot token inside a Bot API URL.
 */
export function createRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (text) =>
    known
      .reduce((out, secret) => out.split(secret).join('[redacted]'), text)
      .replace(BOT_TOKEN_IN_URL, '/bot[redacted]');
}
