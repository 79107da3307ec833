import type { Address } from '../core/types.ts';
import type { OutboundText } from '../outbound/compose.ts';

export interface CommandContext {
  address: Address;
  newSession(): void;
}

interface Command {
  description: string;
  run(args: string, context: CommandContext): OutboundText;
}

const plain = (text: string): OutboundText => ({ text, format: 'plain' });

export const COMMANDS: Record<string, Command> = {
  start: {
    description: 'Say hello',
    run: () =>
      plain('Hi! I am satchel, your personal assistant. Send me a message to get started.'),
  },
  help: {
    description: 'What I can do',
    run: () => plain(['Commands:', ...Object.entries(COMMANDS).map(helpLine)].join('\n')),
  },
  new: {
    description: 'Start a fresh session',
    run: (_args, context) => {
      context.newSession();
      return plain('Started a fresh session.');
    },
  },
};

function helpLine([name, command]: [string, Command]): string {
  return `/${name} — ${command.description}`;
}

/** Runs a command and returns the reply; an unknown command gets a pointer to /help. */
export function runCommand(name: string, args: string, context: CommandContext): OutboundText {
  const command = COMMANDS[name];
  if (!command) return plain(`I don't know /${name}. Send /help to see what I can do.`);
  return command.run(args, context);
}
