import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** The person left the questions: Ctrl-C, or the end of input (Ctrl-D, a closed pipe). */
export class PromptEnded extends Error {
  override name = 'PromptEnded';
  constructor(readonly reason: 'interrupted' | 'input ended') {
    super(reason === 'interrupted' ? 'stopped (Ctrl-C)' : 'the input ended before an answer');
  }
}

/** Questions asked on a terminal, one line each. */
export interface Prompter {
  /** The line typed, trimmed; `fallback` for an empty line when one is given. */
  ask(question: string, fallback?: string): Promise<string>;
  /** As `ask`, without showing what is typed (keys, tokens) when stdin is a terminal. */
  askSecret(question: string): Promise<string>;
  /** `[Y/n]` or `[y/N]`: Enter takes `fallback`; only y/yes or n/no count. */
  confirm(question: string, fallback: boolean): Promise<boolean>;
  /** Aborted by Ctrl-C on the terminal, also while no question is open (a long wait). */
  readonly interrupted: AbortSignal;
  close(): void;
}

/**
 * One readline over the command's streams for the whole session (a second interface on the
 * same stream would lose the lines the first one had buffered). On a real terminal it runs in
 * terminal mode, so typing can be hidden by muting the echo; on any other stream (tests,
 * pipes) it reads plain lines.
 */
export function createPrompter(io: {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}): Prompter {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stdout.write(chunk);
      done();
    },
  });
  const input = io.stdin as NodeJS.ReadableStream & { setRawMode?: unknown; isTTY?: boolean };
  const terminal = input.isTTY === true && typeof input.setRawMode === 'function';
  const rl = createInterface({ input, output, terminal });
  const lines = rl[Symbol.asyncIterator]();
  let interrupted: (() => void) | undefined;
  let stopped: PromptEnded | undefined;
  const interruption = new AbortController();
  rl.on('SIGINT', () => {
    stopped = new PromptEnded('interrupted');
    interruption.abort(stopped);
    interrupted?.();
  });

  const nextLine = async (): Promise<string> => {
    if (stopped) throw stopped;
    const onInterrupt = new Promise<never>((_, reject) => {
      interrupted = () => reject(stopped);
    });
    try {
      const next = await Promise.race([lines.next(), onInterrupt]);
      if (next.done) throw new PromptEnded('input ended');
      return String(next.value).trim();
    } finally {
      interrupted = undefined;
    }
  };

  const ask = async (question: string, fallback?: string) => {
    rl.setPrompt(question);
    rl.prompt();
    const line = await nextLine();
    return line === '' && fallback !== undefined ? fallback : line;
  };

  return {
    ask,
    async askSecret(question) {
      io.stdout.write(question);
      rl.setPrompt('');
      muted = terminal;
      try {
        return await nextLine();
      } finally {
        if (muted) io.stdout.write('\n');
        muted = false;
      }
    },
    async confirm(question, fallback) {
      for (;;) {
        const answer = (await ask(`${question} ${fallback ? '[Y/n]' : '[y/N]'} `)).toLowerCase();
        if (answer === '') return fallback;
        if (answer === 'y' || answer === 'yes') return true;
        if (answer === 'n' || answer === 'no') return false;
        io.stdout.write('Please answer y or n.\n');
      }
    },
    interrupted: interruption.signal,
    close: () => rl.close(),
  };
}
