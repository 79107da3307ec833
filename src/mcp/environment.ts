/**
 * What of satchel's own environment a server process sees: enough to run a program (where
 * programs are, the home folder, the locale, the time zone, a temp folder), never the rest —
 * satchel's environment holds its bot token and API keys.
 */
const PASSED = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  // Windows needs these to start most programs.
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

/** The minimal environment taken from `parent`, with the server's own `env` on top. */
export function serverEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSED) {
    const value = parent[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...own };
}
