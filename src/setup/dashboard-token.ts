import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where satchel keeps the dashboard token it made when DASHBOARD_TOKEN is unset (SPEC §1). */
export const DASHBOARD_TOKEN_FILE = 'dashboard-token';

/** The token kept in SATCHEL_HOME, so `.env` gets the one open tabs already hold; else undefined. */
export function keptDashboardToken(home: string): string | undefined {
  try {
    return readFileSync(path.join(home, DASHBOARD_TOKEN_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
