import type { EdgeConversations } from '../core/edge-conversations.ts';
import type { Logger } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import type { WebChannel } from './channel.ts';
import type { WebInput } from './input.ts';

/** What the owner asks of the last exchange (SPEC §16: actions on messages). */
export type RedoKind = 'regenerate' | 'edit' | 'retry';

export interface RedoDeps {
  channel: Pick<WebChannel, 'conversation'>;
  input: Pick<WebInput, 'again'>;
  store: Pick<EdgeConversations, 'unsay'>;
  now: () => number;
  log: Logger;
}

export type RedoAnswer = { status: number; body: unknown };
const refused = (error: string): RedoAnswer => ({ status: 409, body: { error } });

/**
 * Regenerate (the last answer again), edit and resend (the owner's last message, changed) and
 * Retry (a failed answer): the last exchange — the owner's last message and everything after
 * it — is taken back from the session and its search index (`unsay`: what its tools wrote
 * elsewhere stays, and the ledger), its answers leave the page, and the message (or its new
 * text) is handed on again as a new input, shown once, in its place. Only a finished exchange
 * of a typed message is redone: while a turn runs or waits, or for a command or a file, it
 * is refused with the reason.
 */
export function createRedo(deps: RedoDeps) {
  return function redo(address: Address, kind: RedoKind, edited?: string): RedoAnswer {
    const transcript = deps.channel.conversation(address);
    const shown = transcript.snapshot();
    if (shown.working || shown.draft) return refused('Wait for the answer, or stop it first.');
    const at = shown.entries.findLastIndex((e) => e.kind === 'user');
    const asked = shown.entries[at];
    const answers = shown.entries.slice(at + 1);
    const last = answers.at(-1);
    if (asked?.kind !== 'user' || last === undefined)
      return refused('There is no answered message to do that with.');
    if (kind === 'retry' && !(last.kind === 'bot' && last.failed))
      return refused('The last answer did not fail: there is nothing to retry.');
    if (asked.attachment || asked.text.startsWith('/'))
      return refused('Only a typed message can be sent again.');
    const text = kind === 'edit' ? (edited ?? '').trim() : asked.text;
    if (text === '') return refused('Type a message first.');

    const removed = asked.source === undefined ? 0 : deps.store.unsay(address, asked.source);
    for (const answer of answers) transcript.remove(answer.id);
    const source = deps.input.again(address, text);
    transcript.replace({ ...asked, text, source, at: deps.now() });
    deps.log.info({ event: 'web_redo', kind, removed }, 'the last exchange is redone');
    return { status: 202, body: { ok: true } };
  };
}

export type Redo = ReturnType<typeof createRedo>;
