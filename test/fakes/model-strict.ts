/**
 * The fake model server's request checks: what the real APIs refuse with 400 before any
 * model runs, so that a request the fake accepts is one the provider would accept too.
 *
 *   OpenAI, Groq  every tool's function name matches ^[a-zA-Z0-9_-]{1,64}$; `tools: []`
 *                 is refused.
 *   Gemini        a function name starts with a letter or `_` and holds only letters,
 *                 digits, `_`, `-`, `.` and `:`, at most 64 characters; an empty
 *                 `functionDeclarations` is refused; `$schema` and `$ref` (unsupported here)
 *                 anywhere in `parametersJsonSchema` are refused.
 *
 * Each refusal comes in the provider's error body: OpenAI names the `param`; Groq sends a
 * message and type; Gemini an INVALID_ARGUMENT status listing each field it refuses.
 */

// biome-ignore lint/suspicious/noExplicitAny: arbitrary provider JSON
type Json = any;

export interface Refusal {
  status: 400;
  body: object;
}

const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** Why the provider refuses this chat request body, or undefined when it takes it. */
export function refusal(provider: 'openai' | 'groq' | 'gemini', body: Json): Refusal | undefined {
  if (provider === 'gemini') return geminiRefusal(body);
  const problem = openAiProblem(body);
  if (!problem) return undefined;
  const error =
    provider === 'openai'
      ? {
          message: problem.message,
          type: 'invalid_request_error',
          param: problem.param,
          code: problem.code,
        }
      : { message: problem.message, type: 'invalid_request_error' };
  return { status: 400, body: { error } };
}

function openAiProblem(body: Json): { message: string; param: string; code: string } | undefined {
  const tools = body?.tools;
  if (!Array.isArray(tools)) return undefined;
  if (tools.length === 0)
    return {
      message:
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'tools',
      code: 'empty_array',
    };
  for (const [i, tool] of tools.entries()) {
    const name = tool?.function?.name;
    const param = `tools[${i}].function.name`;
    if (typeof name !== 'string' || !OPENAI_NAME.test(name))
      return {
        message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
        param,
        code: 'invalid_value',
      };
  }
  return undefined;
}

function geminiRefusal(body: Json): Refusal | undefined {
  const problems: string[] = [];
  for (const [t, tool] of (Array.isArray(body?.tools) ? body.tools : []).entries()) {
    const declarations = tool?.functionDeclarations;
    if (Array.isArray(declarations) && declarations.length === 0)
      problems.push(
        `tools[${t}].tool_type: required one_of 'tool_type' must have one initialized field`,
      );
    for (const [d, declaration] of (Array.isArray(declarations) ? declarations : []).entries()) {
      const at = `tools[${t}].function_declarations[${d}]`;
      if (typeof declaration?.name !== 'string' || !GEMINI_NAME.test(declaration.name))
        problems.push(
          `${at}.name: [FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`,
        );
      for (const key of keysIn(declaration?.parametersJsonSchema))
        if (key === '$schema' || key === '$ref')
          problems.push(`${at}.parameters_json_schema: [FIELD_INVALID] ${key} is not supported.`);
    }
  }
  if (!problems.length) return undefined;
  const message = `The GenerateContentRequest proto is invalid:\n${problems.map((p) => `  * ${p}`).join('\n')}`;
  return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
}

/** Every key of every object inside `value`, at any depth. */
function* keysIn(value: unknown): Generator<string> {
  if (Array.isArray(value)) for (const item of value) yield* keysIn(item);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      yield key;
      yield* keysIn(inner);
    }
}

/** The audio formats Groq's Whisper takes, by the uploaded file's extension (its only test). */
export const WHISPER_FORMATS = [
  'flac',
  'mp3',
  'mp4',
  'mpeg',
  'mpga',
  'm4a',
  'ogg',
  'opus',
  'wav',
  'webm',
];

/**
 * Why Groq refuses this transcription upload, or undefined when it takes it: a file whose
 * name does not end in one of WHISPER_FORMATS (`.oga`, `.weba`, `.aac`, none) gets Groq's
 * 400 `unsupported_audio_format`, word for word.
 */
export function transcriptionRefusal(filename: string | undefined): Refusal | undefined {
  const ext = /\.([^.]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext !== undefined && WHISPER_FORMATS.includes(ext)) return undefined;
  return {
    status: 400,
    body: {
      error: {
        message: `file must be one of the following types: [${WHISPER_FORMATS.join(' ')}]`,
        type: 'invalid_request_error',
        code: 'unsupported_audio_format',
      },
    },
  };
}
