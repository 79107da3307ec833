import path from 'node:path';
import { pino } from 'pino';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';

/** A log file in SATCHEL_HOME, its owner's only (it names the packs, the turns, the users). */
export function privateLog(dir: string, name: string) {
  makePrivateDir(dir);
  return pino.destination({ dest: path.join(dir, name), sync: true, mode: PRIVATE_FILE });
}
