import { noMoreThan } from './args.ts';
import type { CliCommand } from './command.ts';

const HELP = `Usage: npx satchel start

Runs satchel, exactly as npm start does: reads the configuration (.env and the
environment), polls Telegram (with TELEGRAM_BOT_TOKEN set), serves the dashboard and the
web chat on 127.0.0.1 (it prints their addresses) and runs the schedules. SIGINT or
SIGTERM stops it gracefully; a second one while it stops is ignored (npm passes Ctrl-C
on, so one press can arrive twice); a third exits at once.`;

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
