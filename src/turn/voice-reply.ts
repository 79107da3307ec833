import type { Clock } from '../core/clock.ts';
import { AbortedError, isAbort } from '../core/errors.ts';
import type { Logger, Speaker } from '../core/ports.ts';
import { type Address, addressKey } from '../core/types.ts';
import { type Dialect, PLAIN, renderMarkdown } from '../outbound/markdown.ts';
import type { Outbox } from '../outbound/outboxes.ts';
import type { VoiceSetting } from '../store/session-repo.ts';
import { bookedCall } from '../usage/booked-call.ts';
import type { Ledger, UsageScope } from '../usage/ledger.ts';
import { type PackCaps, QuotaExceededError, type QuotaGate } from '../usage/quota.ts';
import { isOggOpus } from './ogg-opus.ts';
import type { SpokenFiles } from './spoken-files.ts';

/** VOICE_REPLY, and what a chat's /voice setting means: `on` is `always`. */
export type VoiceMode = 'off' | 'inbound' | 'always';

/** An answer longer than this is sent as text only (SPEC §18): nobody listens to an essay. */
export const MAX_SPOKEN_CHARS = 4000;
/** The longest a voice note may take to be spoken (SPEC §18); past it the answer stays text. */
export const SPEECH_LIMIT_MS = 20_000;
/**
 * The most audio one spoken answer may bring. 4,000 characters are about five minutes of
 * speech: under 5 MB even as Opus at 128 kbit/s (OpenAI's is nearer 1 MB). A server that
 * sends more is cut off there.
 */
export const MAX_SPEECH_BYTES = 10 * 1024 * 1024;

/** Why a speech call was cut off at SPEECH_LIMIT_MS. */
class SpeechTimedOut extends AbortedError {
  constructor() {
    super(`no speech within ${SPEECH_LIMIT_MS / 1000} s`);
  }
}

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
  outbox: Pick<Outbox, 'writePayload' | 'dispatch' | 'wroteAfter'>;
  clock: Clock;
  log: Logger;
  /** Where spoken answers are kept until sent (SATCHEL_HOME/media/voice): the row names the file. */
  files: Pick<SpokenFiles, 'keep' | 'remove'>;
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
  /** The outbox's newest row once the answer was written (Outbox.newestRow). */
  after: number;
}

/**
 * Voice replies (SPEC §18): after an answer's text was written, the same answer spoken by
 * TTS_MODEL (Opus in OGG) and sent as a voice note through the chat's outbox. The call passes
 * the quota gate and is booked as `tts` with the characters spoken. Nothing here can fail or
 * hold up the turn: the speaking runs beside the conversation's lane, for at most 20 s, and a
 * refused, failed, late or stopped call leaves the text alone and logs one line. A voice note
 * is never sent after a later message: when the chat got one before the audio was ready, the
 * note is dropped (`voice_reply_dropped`). The audio is spoken once: its outbox row is written
 * after the speaker answered, so a restart sends an unsent row (once) and never speaks the
 * answer again.
 */
export function createVoiceReplies(deps: VoiceReplyDeps) {
  const { clock, log } = deps;
  let warnedUnset = false;
  /** Voice notes being spoken, each with what ends it early (shutdown). */
  const speaking = new Map<Promise<void>, AbortController>();

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

  /** Why the turn gets no voice note (logged), or the speaker that makes it. */
  function admitted(turn: SpokenTurn): { speaker: Speaker; text: string } | undefined {
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
      return undefined;
    }
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
      return undefined;
    }
    return { speaker, text: words.text };
  }

  /** One line, no stack: the text is delivered, and the next answer tries again. */
  function failed(speaker: Speaker, reason: string): void {
    log.warn(
      { event: 'voice_reply_failed', ...speaker.info, reason },
      'voice reply failed; the answer was sent as text',
    );
  }

  /** The spoken answer, booked in the ledger; undefined when the call failed (logged). */
  async function speak(speaker: Speaker, turn: SpokenTurn, text: string, signal: AbortSignal) {
    const row = { kind: 'tts' as const, ...speaker.info, scope: turn.scope };
    try {
      return await bookedCall(
        deps,
        row,
        () => speaker.speak(text, { signal, maxBytes: MAX_SPEECH_BYTES }),
        () => ({ characters: text.length }),
      );
    } catch (error) {
      if (signal.reason instanceof SpeechTimedOut) failed(speaker, signal.reason.message);
      else failed(speaker, isAbort(error) ? 'aborted' : String((error as Error).message));
      return undefined;
    }
  }

  /**
   * Speaks the answer and sends the voice note, unless the audio is not Ogg/Opus or the chat
   * got a later message meanwhile. The check and the row are written in one go (no await
   * between), so no message can slip in after the check and before the note.
   */
  async function deliver(speaker: Speaker, turn: SpokenTurn, text: string, signal: AbortSignal) {
    const audio = await speak(speaker, turn, text, signal);
    if (!audio) return;
    if (!isOggOpus(audio)) return failed(speaker, `not an Ogg/Opus file (${audio.length} bytes)`);
    if (deps.outbox.wroteAfter(turn.address, turn.after)) {
      log.info(
        { event: 'voice_reply_dropped', address: addressKey(turn.address) },
        'a later message went out before the voice note was ready; the note is dropped',
      );
      return;
    }
    const file = deps.files.keep(audio);
    const { ids } = deps.outbox.writePayload(turn.address, {
      kind: 'voice',
      source: { path: file },
    });
    if (await deps.outbox.dispatch(ids)) deps.files.remove(file);
  }

  /** Starts the voice note for a written answer, when this chat wants one; never waits for it. */
  function follow(turn: SpokenTurn): void {
    const admit = admitted(turn);
    if (!admit) return;
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(new SpeechTimedOut()), SPEECH_LIMIT_MS);
    const done: Promise<void> = deliver(admit.speaker, turn, admit.text, controller.signal)
      .catch((error: unknown) => failed(admit.speaker, String((error as Error)?.message ?? error)))
      .finally(() => {
        clock.clearTimeout(timer);
        speaking.delete(done);
      });
    speaking.set(done, controller);
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

    /**
     * Speaks a written answer when this chat wants it, beside the conversation's lane: returns
     * at once (a refusal or failure is logged, never thrown).
     */
    follow(turn: SpokenTurn): void {
      try {
        follow(turn);
      } catch (error) {
        log.warn(
          { event: 'voice_reply_failed', reason: String((error as Error)?.message ?? error) },
          'voice reply failed; the answer was sent as text',
        );
      }
    },

    /** Resolves when no voice note is being spoken or sent (shutdown waits for it). */
    async idle(): Promise<void> {
      while (speaking.size > 0) await Promise.all(speaking.keys());
    },

    /** Ends every speech call now (shutdown after its grace): their answers stay text. */
    abortAll(): void {
      for (const controller of speaking.values()) controller.abort(new AbortedError('shutdown'));
    },
  };
}

export type VoiceReplies = ReturnType<typeof createVoiceReplies>;
