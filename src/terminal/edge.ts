import type { EdgeFactory } from '../core/edge.ts';
import { LOCAL_ADDRESS, type TerminalChannel } from './channel.ts';
import { createTerminalInput } from './input.ts';

export type TerminalInput = ReturnType<typeof createTerminalInput>;

/**
 * The terminal (`satchel chat`) as an edge of the core: its channel, and its ingress — the
 * lines the chat reads (chat-app.ts) as events of the one local conversation. No gate (only
 * the owner types here), no acknowledgement (a line is not stored to be replayed) and no
 * file source (the terminal sends no files). `input` is there once the core has connected it.
 */
export function terminalEdge(terminal: TerminalChannel, options: { exit(): void }) {
  let input: TerminalInput | undefined;
  const factory: EdgeFactory = {
    platform: terminal.platform,
    name: 'the terminal',
    connect: ({ clock }) => ({
      platform: terminal.platform,
      channel: terminal,
      ingress: (port) => {
        input = createTerminalInput({
          address: LOCAL_ADDRESS,
          clock,
          accept: port.accept,
          choose: (choice) => terminal.choose(choice),
          optionCount: () => terminal.options?.buttons.length ?? 0,
          notice: (text) => terminal.note(text),
          exit: options.exit,
        });
        return {};
      },
    }),
  };
  return {
    factory,
    get input(): TerminalInput {
      if (!input) throw new Error('the terminal edge is not connected yet');
      return input;
    },
  };
}
