import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../core/clock.ts';
import { isAbort } from '../core/errors.ts';
import type { Logger, Speaker } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { type Dialect, PLAIN, renderMarkdown } from '../outbound/markdown.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import { makePrivateDir, PRIVATE_FILE } from '../store/file-modes.ts';
import type { VoiceSetting } from '../store/session-repo.ts';
import { bookedCall } from '../usage/booked-call.ts';
import type { Ledger, UsageScope } from '../usage/ledger.ts';
import { type PackCaps, QuotaExceededError, type QuotaGate } from '../usage/quota.ts';

/** VOICE_REPLY, and what a chat's /voice setting means: `on` is `always`. */
export type VoiceMode = 'off' | 'inbound' | 'always';

/** An answer longer than this is sent as text only (SPEC §18): nobody listens to an essay. */
export const MAX_SPOKEN_CHARS = 4000;

/** What /voice says and sets (voice-command.ts) and what a turn reads. */
export function voiceModeOf(setting: VoiceSetting | undefined, fallback: VoiceMode): VoiceMode {
  if (setting === undefined) return fallback;
  return setting === 'on' ? 'always' : setting;
}

/**
 * Markdown as it is read aloud: plain text, with a link by its label alone (a URL read letter
 * by letter helps nobody).
 */
const SPOKEN: Dialect = { ...PLAIN, link: (_href, inner) => inner };

/** The words of a Markdown answer, as the speaker is given them. */
export const spokenText = (markdown: string): string => renderMarkdown(markdown, SPOKEN);

export interface VoiceReplyDeps {
  /** TTS_MODEL with TTS_VOICE; undefined when its provider is not set up. */
  speaker: Speaker | undefined;
  /** VOICE_REPLY: the mode of a chat that has no /voice setting. */
  fallback: VoiceMode;
  /** This chat's or topic's /voice setting. */
  setting(to: Address): VoiceSetting | undefined;
  /** Whether `to`'s channel sends voice notes (its declared capability, SPEC §4). */
  plays(to: Address): boolean;
  quota: Pick<QuotaGate, 'check'>;
  ledger: Pick<Ledger, 'record'>;
  outbox: Pick<Outbox, 'writePayload' | 'dispatch'>;
  clock: Clock;
  log: Logger;
  /** Where spoken answers are kept (SATCHEL_HOME/media/voice): the outbox row names the file. */
  dir: string;
}

/** The answer a voice reply may follow. */
export interface SpokenTurn {
  address: Address;
  /** The model's answer (Markdown), without footer or badge. */
  answer: string;
  /** The turn answers a voice note (or audio): `inbound` speaks only then. */
  heardVoice: boolean;
  scope: UsageScope & { pack: string; sessionId: string };
  packCaps: PackCaps;
  signal: AbortSignal;
}

/**
 * Voice replies (SPEC §18): after an answer's text was delivered, the same answer spoken by
 * TTS_MODEL (Opus in OGG) and sent as a voice note through the chat's outbox. The call passes
 * the quota gate and is booked as `tts` with the characters spoken. Nothing here can fail the
 * turn: a refused, failed or stopped call leaves the text alone and logs one line. The audio
 * is spoken once: its outbox row is written after the speaker answered, so a restart sends an
 * unsent row (once) and never speaks the answer again.
 */
export function createVoiceReplies(deps: VoiceReplyDeps) {
  const { clock, log } = deps;
  let warnedUnset = false;

  /**
   * The words to speak, or why this turn gets no voice note. The answer is rendered for
   * speech only once the chat wants a voice note: most chats' turns are text only.
   */
  function spoken(turn: SpokenTurn): { text: string } | { skip: string } {
    const mode = voiceModeOf(deps.setting(turn.address), deps.fallback);
    if (mode === 'off' || (mode === 'inbound' && !turn.heardVoice)) return { skip: 'off' };
    if (turn.signal.aborted) return { skip: 'stopped' };
    if (!deps.plays(turn.address)) return { skip: 'channel' };
    const text = spokenText(turn.answer);
    if (text === '') return { skip: 'empty' };
    if (text.length > MAX_SPOKEN_CHARS) return { skip: 'too_long' };
    if (!deps.speaker) return { skip: 'not_set_up' };
    return { text };
  }

  /** The spoken answer, booked in the ledger; undefined when the call failed (logged). */
  async function speak(speaker: Speaker, turn: SpokenTurn, text: string) {
    const row = { kind: 'tts' as const, ...speaker.info, scope: turn.scope };
    try {
      return await bookedCall(
        deps,
        row,
        () => speaker.speak(text, { signal: turn.signal }),
        () => ({ characters: text.length }),
      );
    } catch (error) {
      const reason = isAbort(error) ? 'aborted' : String((error as Error).message);
      // One line, no stack: the text is delivered, and the next answer tries again.
      log.warn(
        { event: 'voice_reply_failed', ...speaker.info, reason },
        'voice reply failed; the answer was sent as text',
      );
      return undefined;
    }
  }

  /** Keeps the audio where the outbox row can name it (and the web chat can play it). */
  function keep(audio: Buffer): string {
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    const dir = path.join(deps.dir, day);
    makePrivateDir(dir);
    const file = path.join(dir, `${randomUUID()}.ogg`);
    writeFileSync(file, audio, { mode: PRIVATE_FILE });
    return file;
  }

  /** The voice note for a delivered answer, when this chat wants one. */
  async function follow(turn: SpokenTurn): Promise<void> {
    const words = spoken(turn);
    if ('skip' in words) {
      if (words.skip === 'not_set_up' && !warnedUnset) {
        warnedUnset = true;
        log.warn(
          { event: 'voice_reply_unavailable' },
          'voice replies are on, but TTS_MODEL needs an OpenAI-compatible provider with a key or base URL',
        );
      }
      if (words.skip !== 'off')
        log.debug({ event: 'voice_reply_skipped', reason: words.skip }, 'text only');
      return;
    }
    const { text } = words;
    const speaker = deps.speaker!;
    try {
      deps.quota.check(
        { ...turn.scope, packCaps: turn.packCaps },
        { kind: 'tts', ...speaker.info },
      );
    } catch (error) {
      if (!(error instanceof QuotaExceededError)) throw error;
      // The gate logged which cap; the answer stays text.
      log.info({ event: 'voice_reply_skipped', reason: 'quota' }, 'text only: a cap is reached');
      return;
    }
    const audio = await speak(speaker, turn, text);
    if (!audio) return;
    const { ids } = deps.outbox.writePayload(turn.address, {
      kind: 'voice',
      source: { path: keep(audio) },
    });
    await deps.outbox.dispatch(ids);
  }

  return {
    /** The mode in `to`, and whether it is the chat's own (/voice) or VOICE_REPLY's. */
    mode(to: Address): { mode: VoiceMode; own: boolean } {
      const setting = deps.setting(to);
      return { mode: voiceModeOf(setting, deps.fallback), own: setting !== undefined };
    },

    /** Why answers in `to` cannot be spoken whatever the mode; undefined when they can. */
    problem(to: Address): string | undefined {
      if (!deps.plays(to)) return 'This chat cannot play voice notes, so answers here stay text.';
      if (!deps.speaker)
        return 'Voice replies are not set up: TTS_MODEL needs an OpenAI-compatible provider with its key (OPENAI_API_KEY) or OPENAI_BASE_URL.';
      return undefined;
    },

    /** Speaks a delivered answer when this chat wants it; never rejects (a failure is logged). */
    follow: (turn: SpokenTurn): Promise<void> =>
      follow(turn).catch((error: unknown) => {
        log.warn(
          { event: 'voice_reply_failed', reason: String((error as Error)?.message ?? error) },
          'voice reply failed; the answer was sent as text',
        );
      }),
  };
}

export type VoiceReplies = ReturnType<typeof createVoiceReplies>;
