import { OPENAI_API_URL } from '../config/stt.ts';
import { listModels } from '../providers/probe.ts';
import type { Provider, ProviderAccess, ProviderKeys } from '../providers/registry.ts';
import type { Choice } from './prompter.ts';
import { SetupFailed, type SetupUi } from './ui.ts';

/** OpenAI's own API: where `STT_PROVIDER=openai` goes when nothing else is said. */
/** How long the speech server's model list may take. */
const LIST_MS = 5_000;
/** Model names that transcribe. */
const SPEECH_MODEL = /whisper|transcri|stt/i;

const MENU: Choice[] = [
  { value: 'groq', note: "Groq's Whisper (a Groq key)" },
  { value: 'openai', note: "OpenAI's gpt-4o-mini-transcribe (an OpenAI key)" },
  { value: 'server', note: 'a Whisper server of your own, OpenAI-compatible (its URL)' },
  { value: 'off', note: 'no voice notes' },
];

export interface SpeechGiven {
  /** `--stt`: groq, openai, off, or the base URL of an OpenAI-compatible server. */
  stt?: string | undefined;
  sttModel?: string | undefined;
  sttApiKey?: string | undefined;
}

/** The chat provider setup connected: its key may transcribe too. */
export interface ChatAccess {
  provider: Provider;
  access: ProviderAccess;
}

/** The speech-to-text answers, and the server when it is one of the owner's (for its price). */
export interface SpeechAnswers {
  vars: Map<string, string | undefined>;
  /** `STT_MODEL` on the owner's own server (`--stt URL`): priced at $0 when it is free. */
  server?: { baseUrl: string; model: string };
}

/**
 * Speech-to-text (SPEC §1: STT_PROVIDER, STT_BASE_URL, STT_MODEL, STT_API_KEY) as `.env`
 * answers. Under `--yes` without `--stt` nothing changes (the runtime's default applies).
 * `groq` needs GROQ_API_KEY (kept, `--stt-api-key`, or asked); `openai` on OpenAI's own API
 * uses the chat key, else STT_BASE_URL is OpenAI's and STT_API_KEY its key; a URL is a
 * server of the owner's, its model `--stt-model` or the first speech model it lists.
 */
export async function chooseSpeech(
  given: SpeechGiven,
  current: Readonly<Record<string, string | undefined>>,
  chat: ChatAccess,
  ui: SetupUi,
): Promise<SpeechAnswers> {
  let choice = given.stt;
  if (choice === undefined) {
    if (!ui.prompter) return { vars: new Map() };
    ui.say("\nSpeech-to-text, for voice notes and the web chat's microphone:");
    const pick = await ui.prompter.choose('Speech-to-text', MENU, {
      fallback: MENU.findIndex((c) => c.value === currentChoice(current, chat)),
    });
    choice =
      pick === 'server'
        ? await ui.prompter.ask('Base URL of the server, including /v1: ', current.STT_BASE_URL)
        : pick;
  }
  const vars = new Map<string, string | undefined>([
    ['STT_BASE_URL', undefined],
    ['STT_API_KEY', undefined],
    ['STT_MODEL', given.sttModel],
  ]);
  if (choice === 'off' || choice === 'groq') {
    vars.set('STT_PROVIDER', choice);
    if (choice === 'groq' && chat.provider !== 'groq')
      vars.set('GROQ_API_KEY', await keyFor('GROQ_API_KEY', 'Groq', given, current, ui));
    return { vars };
  }
  vars.set('STT_PROVIDER', 'openai');
  if (choice === 'openai') {
    const ownApi = chat.provider === 'openai' && !chat.access.baseUrl;
    if (!ownApi) {
      vars.set('STT_BASE_URL', OPENAI_API_URL);
      vars.set('STT_API_KEY', await keyFor('STT_API_KEY', 'OpenAI', given, current, ui));
    }
    return { vars };
  }
  if (!/^https?:\/\/[^/]/.test(choice))
    throw new SetupFailed(
      `speech-to-text: "${choice}" is none of groq, openai, off, or an http(s) URL`,
      'Give --stt groq, openai, off, or the base URL of a Whisper server (e.g. http://127.0.0.1:8000/v1).',
    );
  // The chat's own server: its key serves speech too (STT_API_KEY defaults to it).
  const chatServer = chat.provider === 'openai' && chat.access.baseUrl === choice;
  const apiKey =
    given.sttApiKey ?? (ui.prompter && !chatServer ? await askOptionalKey(ui) : undefined);
  const listKey = apiKey ?? (chatServer ? chat.access.apiKey : undefined);
  const model = given.sttModel ?? (await speechModelOf(choice, listKey, ui.signal));
  vars.set('STT_BASE_URL', choice);
  vars.set('STT_API_KEY', apiKey);
  vars.set('STT_MODEL', model);
  return { vars, server: { baseUrl: choice, model } };
}

/** The menu's default: what `.env` says, else the chat provider's own transcription. */
function currentChoice(
  current: Readonly<Record<string, string | undefined>>,
  chat: ChatAccess,
): string {
  if (
    current.STT_PROVIDER === 'openai' &&
    current.STT_BASE_URL &&
    current.STT_BASE_URL !== OPENAI_API_URL
  )
    return 'server';
  if (current.STT_PROVIDER) return current.STT_PROVIDER;
  if (chat.provider === 'groq' || current.GROQ_API_KEY) return 'groq';
  return chat.provider === 'openai' && !chat.access.baseUrl ? 'openai' : 'off';
}

async function keyFor(
  name: string,
  vendor: string,
  given: SpeechGiven,
  current: Readonly<Record<string, string | undefined>>,
  ui: SetupUi,
): Promise<string> {
  const key =
    given.sttApiKey ??
    current[name] ??
    (ui.prompter
      ? await ui.prompter.askSecret(`${vendor} API key for ${name}, not shown as you type: `)
      : undefined);
  if (!key)
    throw new SetupFailed(
      `speech-to-text: ${vendor} transcription needs ${name}`,
      'Give the key with --stt-api-key, or choose --stt off.',
    );
  return key;
}

async function askOptionalKey(ui: SetupUi): Promise<string | undefined> {
  const key = await ui.prompter!.askSecret(
    "The server's API key (Enter if it needs none), not shown as you type: ",
  );
  return key || undefined;
}

/** The first speech model the server lists; `whisper-1` when it lists none or cannot. */
async function speechModelOf(
  baseUrl: string,
  apiKey: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const providers = { openai: { baseUrl, apiKey }, gemini: {}, groq: {} } as ProviderKeys;
  const listed = await listModels(
    { providers },
    'openai',
    AbortSignal.any([signal, AbortSignal.timeout(LIST_MS)]),
  ).catch(() => [] as string[]);
  return listed.find((m) => SPEECH_MODEL.test(m)) ?? 'whisper-1';
}
