import type { OutboundText } from '../core/ports.ts';
import type { Address } from '../core/types.ts';
import { plain } from '../outbound/compose.ts';
import type { Router } from '../routing/router.ts';
import type { VoiceSetting } from '../store/session-repo.ts';
import type { VoiceMode, VoiceReplies } from './voice-reply.ts';

const SETTINGS: readonly VoiceSetting[] = ['on', 'off', 'inbound'];

/** What each mode means, as /voice says it. */
const MEANING: Record<VoiceMode, string> = {
  always: 'on: every answer here also comes as a voice note',
  inbound: 'inbound: an answer to a voice message also comes as a voice note',
  off: 'off: answers here are text only',
};

const USAGE = 'Send /voice on, /voice inbound or /voice off.';

/**
 * `/voice` (SPEC §18): alone, what this chat or topic does now and where that comes from;
 * `/voice on|off|inbound` sets it for this chat or topic. Says so when the chat's channel
 * cannot play voice notes or speech is not set up, so a setting never silently does nothing.
 */
export function voiceCommand(
  deps: {
    router: Pick<Router, 'setVoiceReply'>;
    voice: Pick<VoiceReplies, 'mode' | 'problem'>;
  },
  address: Address,
  args: string,
): OutboundText {
  const word = args.trim().toLowerCase();
  const problem = deps.voice.problem(address);
  const withProblem = (text: string) => plain(problem ? `${text}\n${problem}` : text);
  if (word === '') {
    const { mode, own } = deps.voice.mode(address);
    const source = own ? '' : ' (the default, VOICE_REPLY)';
    return withProblem(`Voice replies ${MEANING[mode]}${source}.\n${USAGE}`);
  }
  const setting = SETTINGS.find((s) => s === word);
  if (!setting) return plain(USAGE);
  deps.router.setVoiceReply(address, setting);
  return withProblem(`Voice replies ${MEANING[setting === 'on' ? 'always' : setting]}.`);
}
