import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import type { ModelCatalog } from '../usage/catalog.ts';
import { NOT_CHAT } from './model-menu.ts';

const HEADER =
  '# The owner\'s model catalog (SPEC §14): "provider:model" → prices in USD per million tokens.\n' +
  '# `npx satchel setup` wrote the models of a free server here at $0; edit as you like.\n';

/**
 * The models of a free server that need a $0 entry: the chat models it lists that the
 * catalog has no token price for. A model the catalog prices already keeps its price (the
 * catalog is per provider, not per server: `openai:gpt-4.1-mini` stays OpenAI's price).
 */
export function freeModelsToWrite(
  provider: string,
  listed: readonly string[],
  catalog: ModelCatalog,
): string[] {
  return [...new Set(listed)]
    .filter((model) => !NOT_CHAT.test(model) && !catalog.priced(provider, model, 'llm'))
    .sort();
}

/** A $0 chat model's entry in the owner's catalog. */
export const FREE_CHAT = { input: 0, output: 0 };
/** A $0 speech-to-text model's entry. */
export const FREE_SPEECH = { audio_per_hour: 0 };

/**
 * Adds each `[key, entry]` (`provider:model`, FREE_CHAT or FREE_SPEECH) to the owner's
 * catalog `file`, keeping what it holds (comments and entries; an entry already there is
 * left alone). The file is replaced in one step, readable by its owner only; its folder is
 * made (0700) when missing. Returns the keys added.
 */
export function writeFreeModels(
  file: string,
  entries: ReadonlyArray<readonly [string, Record<string, number>]>,
): string[] {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  // An empty file (or one of comments only) becomes a mapping under the header.
  const doc = parseDocument(parseDocument(text).contents === null ? `${text || HEADER}{}\n` : text);
  if (!isMap(doc.contents)) throw new Error(`${file} is not a mapping`);
  doc.contents.flow = false;
  const added: string[] = [];
  for (const [key, fields] of entries) {
    if (doc.has(key)) continue;
    const entry = doc.createNode(fields);
    entry.flow = true;
    doc.set(key, entry);
    added.push(key);
  }
  if (added.length === 0) return added;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.setup-${process.pid}`;
  writeFileSync(temp, doc.toString(), { mode: 0o600 });
  renameSync(temp, file);
  return added;
}
