import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { readYaml, readYamlFile, type YamlSource } from '../core/yaml-source.ts';
import { createModelCatalog, type ModelCatalog, type OwnerCatalog } from './catalog.ts';
import type { ModelEntry } from './models.ts';

const price = z.number({ error: 'must be a number (USD)' }).min(0, 'must be 0 or more');

/** One entry as the owner writes it (SPEC §14); prices in USD per million tokens. */
const entrySchema = z
  .strictObject({
    input: price.optional(),
    cached_input: price.optional(),
    output: price.optional(),
    audio_per_hour: price.optional(),
    per_call: price.optional(),
    tts_per_million_chars: price.optional(),
    images: z.boolean({ error: 'must be true or false' }).optional(),
    context: z.int({ error: 'must be a whole number of tokens' }).positive().optional(),
  })
  .superRefine((e, ctx) => {
    // A token price needs both sides: half a price would book calls too cheap.
    const has = [e.input, e.output].filter((v) => v !== undefined).length;
    if (has === 1 || (has === 0 && e.cached_input !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: [e.input === undefined ? 'input' : 'output'],
        message: 'is required with a token price (input and output, per million tokens)',
      });
  });

const KEY = /^[a-z][a-z0-9-]*:.+$/;

/**
 * The effective model catalog: the bundled one with the owner's SATCHEL_MODELS on top.
 * Throws a ConfigError naming the file, line and field when the owner's file is invalid.
 */
export function loadModelCatalog(config: {
  models: { file: string; required: boolean };
}): ModelCatalog {
  return createModelCatalog(loadOwnerCatalog(config.models.file, config.models.required));
}

/**
 * Reads the owner's catalog (SATCHEL_MODELS). A missing file is an empty catalog unless the
 * owner named it (`required`). Throws a ConfigError naming the file, the line and the field
 * of every problem: a wrong price must stop start-up, not book calls wrongly.
 */
export function loadOwnerCatalog(file: string, required = false): OwnerCatalog {
  if (!existsSync(file)) {
    if (required)
      throw new ConfigError(
        `Invalid model catalog:\n- SATCHEL_MODELS names ${file}, which does not exist: create it or unset SATCHEL_MODELS`,
      );
    return { file, entries: {} };
  }
  // Its size is checked before it is read: a 38 MB file is refused, not parsed.
  return ownerCatalogOf(file, readYamlFile(file));
}

/**
 * Parses the text of an owner catalog; `file` is named in errors. A text past the limits
 * of YAML_LIMITS (1 MB, 1,000 entries, 100 aliases) is refused in one sentence.
 */
export function parseOwnerCatalog(file: string, text: string): OwnerCatalog {
  return ownerCatalogOf(file, readYaml(text));
}

function ownerCatalogOf(file: string, source: YamlSource): OwnerCatalog {
  const problems: string[] = source.errors.map((e) => at(file, e.line, e.message));
  const value = source.value ?? {};
  if (problems.length === 0 && (typeof value !== 'object' || Array.isArray(value)))
    problems.push(at(file, 1, 'must be a mapping of "provider:model" to its entry'));
  const entries: Record<string, Partial<ModelEntry>> = {};
  if (problems.length === 0)
    for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
      if (!KEY.test(key)) {
        problems.push(at(file, source.lineOf([], key), `${key}: the key must be "provider:model"`));
        continue;
      }
      const parsed = entrySchema.safeParse(raw ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field =
            issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
          const line =
            issue.code === 'unrecognized_keys'
              ? source.lineOf([key], issue.keys[0])
              : source.lineOf([key, ...issue.path.map(String)]);
          const message =
            issue.code === 'unrecognized_keys'
              ? 'is not a field (input, cached_input, output, audio_per_hour, per_call, tts_per_million_chars, images, context)'
              : issue.message;
          problems.push(at(file, line, `${key}${field ? `.${field}` : ''} ${message}`));
        }
        // zod reports unknown fields first; the owner reads the file top to bottom.
        problems.sort((a, b) => lineIn(a) - lineIn(b));
        continue;
      }
      entries[key] = toEntry(parsed.data);
    }
  if (problems.length > 0)
    throw new ConfigError(`Invalid model catalog:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  return { file, entries };
}

const lineIn = (problem: string) => Number(/ line (\d+): /.exec(problem)?.[1] ?? 0);

const at = (file: string, line: number | undefined, message: string) =>
  `${file}${line === undefined ? '' : ` line ${line}`}: ${message}`;

function toEntry(e: z.infer<typeof entrySchema>): Partial<ModelEntry> {
  const entry: Partial<ModelEntry> = {};
  if (e.images !== undefined) entry.images = e.images;
  if (e.input !== undefined && e.output !== undefined)
    entry.tokens = { input: e.input, cachedInput: e.cached_input ?? e.input, output: e.output };
  if (e.audio_per_hour !== undefined) entry.audioPerHour = e.audio_per_hour;
  if (e.per_call !== undefined) entry.perCall = e.per_call;
  if (e.tts_per_million_chars !== undefined) entry.ttsPerMillionChars = e.tts_per_million_chars;
  if (e.context !== undefined) entry.context = e.context;
  return entry;
}
