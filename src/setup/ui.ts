import type { Check } from '../ops/check.ts';
import type { Prompter } from './prompter.ts';

/** What each setup step talks through: the person, when there is one to ask, and the output. */
export interface SetupUi {
  /** Undefined under `--yes`: every answer comes from a flag or a default, nothing is asked. */
  prompter: Prompter | undefined;
  /** One or more lines to stdout. */
  say(text: string): void;
  /** Aborted when the person stops setup (Ctrl-C). */
  signal: AbortSignal;
}

/** A check setup cannot get past (a refused key or token): exit 1, nothing written. */
export class SetupFailed extends Error {
  override name = 'SetupFailed';
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }

  static from(check: Check): SetupFailed {
    return new SetupFailed(check.title, check.fix ?? '');
  }
}
