import { startHelp } from '../start-help.ts';
import { noMoreThan } from './args.ts';
import type { CliCommand } from './command.ts';

const HELP = startHelp('npx satchel start');

/** `satchel start`: the bot's own entry point (src/main.ts), which runs until a signal. */
export const startCommand: CliCommand = {
  path: ['start'],
  summary: 'run the bot (the same as npm start)',
  help: HELP,
  async run(args) {
    noMoreThan(args, 0);
    // The entry point starts the bot when loaded and owns the process from then on: its
    // signal handlers decide the exit code.
    await import('../main.ts');
    return 0;
  },
};
