import { createInterface } from 'node:readline';
import type { CliIo } from '../core/cli-io.ts';

/** Whether a command may ask its user: its standard input is a terminal. */
export function isTerminal(io: Pick<CliIo, 'stdin'>): boolean {
  return (io.stdin as { isTTY?: boolean }).isTTY === true;
}

/**
 * Asks `question` with `[y/N]` and resolves with the answer: true only for `y` or `yes`
 * (any case); Enter, anything else, or the end of input is no.
 */
export function askYesNo(io: Pick<CliIo, 'stdin' | 'stdout'>, question: string): Promise<boolean> {
  io.stdout.write(`${question} [y/N] `);
  const lines = createInterface({ input: io.stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    const answer = (yes: boolean) => {
      if (answered) return;
      answered = true;
      lines.close();
      resolve(yes);
    };
    lines.once('line', (line) => answer(/^y(es)?$/i.test(line.trim())));
    lines.once('close', () => answer(false));
  });
}
