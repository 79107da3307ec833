/**
 * The folder in SATCHEL_HOME that keeps what is kept for the owner: `satchel backup`'s
 * archives by default and the `.env` that `satchel setup` replaced. A backup leaves it out
 * (it stages only what it names, backup.ts), so archives never nest.
 */
export const BACKUPS_FOLDER = 'backups';
