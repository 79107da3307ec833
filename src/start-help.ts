/**
 * What `satchel start --help` and `npm start -- --help` print. Kept apart from the command
 * so the entry point (src/main.ts) can print it without loading the CLI.
 */
export function startHelp(usage: 'npx satchel start' | 'npm start'): string {
  return `Usage: ${usage}

Runs satchel (npm start and npx satchel start are the same; neither takes arguments):
reads the configuration (.env in the current directory, then the environment), polls
Telegram (with TELEGRAM_BOT_TOKEN set; without it, the web chat and the dashboard run
alone), serves the dashboard and the web chat on 127.0.0.1:DASHBOARD_PORT (it prints their
addresses on stderr) and runs the schedules, until it is stopped.

SIGINT or SIGTERM stops it gracefully: polling stops, running turns get up to 10 s, the
outboxes flush. A second one while it stops is ignored (npm passes Ctrl-C on, so one press
can arrive twice); a third exits at once. Under npm start, killing npm's own pid stops it
the same way: satchel sees that its parent is gone and drains.`;
}
