import { z } from 'zod';
import { manifestSchema } from './manifest.ts';

/** Where the generated schema is committed, relative to the repository root. */
export const PACK_SCHEMA_FILE = 'packs/pack.schema.json';

/**
 * The JSON Schema of `pack.yml`, generated from the zod schema (the one source of truth) for
 * editors: `# yaml-language-server: $schema=../pack.schema.json` at the top of a manifest gives
 * completion, descriptions and checks as you type. It describes what an author writes (zod's
 * input side: fields with defaults are optional). Checks that need code (a cron expression
 * that parses, a cron job naming one of the pack's skills) stay in `satchel pack validate`.
 */
export function packJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(manifestSchema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
}

/** The first line of a pack.yml that points the YAML language server at `schemaPath`. */
export function schemaComment(schemaPath: string): string {
  return `# yaml-language-server: $schema=${schemaPath}`;
}
