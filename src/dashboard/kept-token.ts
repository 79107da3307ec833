import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';

/** Where the dashboard's token is kept when DASHBOARD_TOKEN is unset (SPEC §1). */
export const KEPT_TOKEN_FILE = 'dashboard-token';

/**
 * The dashboard's token kept in `home` (`dashboard-token`, 0600): read when it is there,
 * else made once (24 random bytes, base64url) and written, so a restart keeps every signed-in
 * page signed in. Two starts racing write it once: the loser reads the winner's.
 */
export function keptToken(home: string): string {
  const file = path.join(home, KEPT_TOKEN_FILE);
  const read = () => readFileSync(file, 'utf8').trim();
  try {
    const kept = read();
    if (kept !== '') return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  makePrivateDir(home);
  const token = randomBytes(24).toString('base64url');
  try {
    writeFileSync(file, `${token}\n`, { mode: PRIVATE_FILE, flag: 'wx' });
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return read();
  }
}
