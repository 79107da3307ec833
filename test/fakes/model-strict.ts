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
  status: 400 | 404;
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

/** The audio formats Whisper takes, by the uploaded file's extension (its only test). */
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

/** The models each provider transcribes with, unless a test says otherwise. */
export const TRANSCRIPTION_MODELS: Record<'openai' | 'groq', readonly string[]> = {
  openai: ['gpt-4o-mini-transcribe', 'gpt-4o-transcribe', 'whisper-1'],
  groq: ['whisper-large-v3-turbo', 'whisper-large-v3', 'distil-whisper-large-v3-en'],
};

/**
 * Why the provider refuses this transcription upload, or undefined when it takes it:
 *
 *   no `model` field            400, as both APIs answer a form without one
 *   a model it does not serve   404 `model_not_found` (a chat model, another provider's)
 *   a file whose name does not end in one of WHISPER_FORMATS (`.oga`, `.weba`, none)
 *                               400: Groq's `unsupported_audio_format`, word for word; on the
 *                               OpenAI route (OpenAI, or a local Whisper server that picks the
 *                               format by the name too) `invalid_value` on `file`
 *   `verbose_json` from a gpt-4o transcription model   400 `unsupported_value`, as OpenAI says
 */
export function transcriptionRefusal(
  provider: 'openai' | 'groq',
  body: { fields: Record<string, string>; file?: { filename?: string } },
  models: readonly string[],
): Refusal | undefined {
  const model = body.fields.model;
  if (!model)
    return invalid(provider, 400, 'you must provide a model parameter', 'model', 'missing');
  if (!models.includes(model))
    return invalid(
      provider,
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      'model',
      'model_not_found',
    );
  const ext = /\.([^.]+)$/.exec(body.file?.filename ?? '')?.[1]?.toLowerCase();
  if (ext === undefined || !WHISPER_FORMATS.includes(ext))
    return provider === 'groq'
      ? invalid(
          provider,
          400,
          `file must be one of the following types: [${WHISPER_FORMATS.join(' ')}]`,
          'file',
          'unsupported_audio_format',
        )
      : invalid(
          provider,
          400,
          `Invalid file format. Supported formats: [${WHISPER_FORMATS.map((f) => `'${f}'`).join(', ')}]`,
          'file',
          'invalid_value',
        );
  if (body.fields.response_format === 'verbose_json' && model.startsWith('gpt-4o'))
    return invalid(
      provider,
      400,
      `response_format 'verbose_json' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
      'response_format',
      'unsupported_value',
    );
  return undefined;
}

function invalid(
  provider: 'openai' | 'groq',
  status: 400 | 404,
  message: string,
  param: string,
  code: string,
): Refusal {
  const error =
    provider === 'openai'
      ? { message, type: 'invalid_request_error', param, code }
      : { message, type: 'invalid_request_error', code };
  return { status, body: { error } };
}
