/**
 * The Telegram command of a skill with `command: true`. Bot commands may hold only a-z, 0-9
 * and `_` (1–32 characters), so a hyphenated Agent Skills name maps `-` to `_`:
 * `my-skill` → `/my_skill`. The dispatcher, the command menu and /help all use this one
 * mapping, so what the menu shows is what dispatches.
 */
export function commandName(skillName: string): string {
  return skillName.replaceAll('-', '_');
}

/** Telegram's rule for a bot command (setMyCommands): 1–32 of a-z, 0-9 and _. */
const TELEGRAM_COMMAND = /^[a-z0-9_]{1,32}$/;

/**
 * Commands satchel answers itself (src/turn/commands.ts CORE_COMMANDS): a skill command with
 * one of these names would never run. CORE_COMMANDS is typed by this list, so the two cannot
 * drift apart.
 */
export const RESERVED_COMMANDS = [
  'start',
  'approvals',
  'help',
  'new',
  'pack',
  'stop',
  'usage',
  'status',
  'compact',
  'topics',
  'jobs',
  'model',
  'queue',
  'pair',
  'voice',
  'people',
  'home',
] as const;

/** Why `skillName` cannot be a command, or undefined when it can. */
export function commandProblem(skillName: string): string | undefined {
  const command = commandName(skillName);
  if (!TELEGRAM_COMMAND.test(command))
    return (
      `with command: true this skill becomes the Telegram command /${command}, but a ` +
      `command must be 1–32 characters of a-z, 0-9 and _ (this one is ${command.length}); ` +
      'shorten the skill name or set command: false'
    );
  if ((RESERVED_COMMANDS as readonly string[]).includes(command))
    return (
      `with command: true this skill becomes /${command}, which is one of satchel's own ` +
      'commands and would never reach the skill; rename the skill or set command: false'
    );
  return undefined;
}
