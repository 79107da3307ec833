import { noMoreThan } from './args.ts';
import type { CliCommand } from './command.ts';
import { startInfo } from './help.ts';

/** `satchel start`: the bot's own entry point (src/main.ts), which runs until a signal. */
export const startCommand: CliCommand = {
  ...startInfo,
  async run(args) {
    noMoreThan(args, 0);
    // The entry point starts the bot when loaded and owns the process from then on: its
    // signal handlers decide the exit code.
    await import('../main.ts');
    return 0;
  },
};
