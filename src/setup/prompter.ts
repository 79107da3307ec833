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
  /**
   * One of `choices` (listed, numbered, above the question): on a terminal ↑/↓ move the pick
   * shown in the question and Enter takes it; a number or a name typed takes that one (on
   * any stream). Enter alone takes `choices[fallback]` (default the first); `other` may
   * accept a typed answer that is not listed. Asks again after anything else.
   */
  choose(question: string, choices: readonly Choice[], options?: ChooseOptions): Promise<string>;
  /** Aborted by Ctrl-C on the terminal, also while no question is open (a long wait). */
  readonly interrupted: AbortSignal;
  close(): void;
}

/** One answer `choose` offers: `value` is returned, and may be typed instead of its number. */
export interface Choice {
  value: string;
  /** What is shown after the value (a description, a price). */
  note?: string;
}

export interface ChooseOptions {
  fallback?: number;
  /** A value for a typed answer that is none of the choices, or undefined to refuse it. */
  other?: (answer: string) => string | undefined;
  /** Lines printed under the list, before the question. */
  footer?: string;
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
  // No history: ↑ must never bring back an answer typed before (a key).
  const rl = createInterface({ input, output, terminal, historySize: 0 });
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

  const choose = async (
    question: string,
    choices: readonly Choice[],
    options: ChooseOptions = {},
  ) => {
    const width = Math.max(...choices.map((c) => c.value.length));
    choices.forEach((c, i) => {
      const note = c.note ? `  ${c.note}` : '';
      io.stdout.write(`  ${String(i + 1).padStart(2)}) ${c.value.padEnd(width)}${note}\n`);
    });
    if (options.footer) io.stdout.write(`${options.footer}\n`);
    let at = options.fallback ?? 0;
    const hint = terminal ? '↑/↓ and Enter, or a number or name' : 'number or name';
    const promptFor = () => `${question} [${hint}; Enter: ${choices[at]!.value}] `;
    // ↑/↓ move the pick shown in the question; readline keeps what is typed.
    const onKey = (_text: string, key: { name?: string } | undefined) => {
      const step = key?.name === 'up' ? -1 : key?.name === 'down' ? 1 : 0;
      if (step === 0) return;
      at = (at + step + choices.length) % choices.length;
      rl.setPrompt(promptFor());
      rl.prompt(true);
    };
    if (terminal) input.on('keypress', onKey);
    try {
      for (;;) {
        const answer = await ask(promptFor());
        const picked = answer === '' ? choices[at]?.value : pick(choices, answer)?.value;
        const value = picked ?? options.other?.(answer);
        if (value !== undefined) return value;
        io.stdout.write(`"${answer}" is not one of them.\n`);
      }
    } finally {
      if (terminal) input.off('keypress', onKey);
    }
  };

  return {
    ask,
    choose,
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

/** The choice `answer` names: its number (from 1) or its value, in any case. */
function pick(choices: readonly Choice[], answer: string): Choice | undefined {
  if (/^\d+$/.test(answer)) return choices[Number(answer) - 1];
  return choices.find((c) => c.value.toLowerCase() === answer.toLowerCase());
}
