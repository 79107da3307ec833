/**
 * One line of `satchel doctor`'s checklist. `fail` lines carry a fix and make the exit code
 * non-zero; `warn` lines are worth knowing and do not.
 */
export interface Check {
  status: 'pass' | 'fail' | 'warn';
  title: string;
  /** More lines under the title (what was found). */
  detail?: string[];
  /** What to do about a `fail` or a `warn`. */
  fix?: string;
}

export const pass = (title: string, detail?: string[]): Check => ({
  status: 'pass',
  title,
  ...(detail?.length ? { detail } : {}),
});

export const fail = (title: string, fix: string, detail?: string[]): Check => ({
  status: 'fail',
  title,
  fix,
  ...(detail?.length ? { detail } : {}),
});

export const warn = (title: string, fix: string): Check => ({ status: 'warn', title, fix });

/**
 * A secret an attacker could guess or try: shorter than 24 characters (a random hex token
 * of 12 bytes), or made of fewer than 8 different characters ("aaaa…", "12121212…").
 */
export function weakSecret(secret: string): boolean {
  return secret.length < 24 || new Set(secret).size < 8;
}

/** How to make a strong secret, as a fix says it. */
export const STRONG_SECRET = '`openssl rand -hex 32`';
