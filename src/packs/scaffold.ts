import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { schemaComment } from './json-schema.ts';

/** The pack.schema.json of this satchel, for the editor comment of a new manifest. */
export const BUNDLED_SCHEMA = fileURLToPath(
  new URL('../../packs/pack.schema.json', import.meta.url),
);

/** The pack-test.schema.json of this satchel, for the editor comment of a new test file. */
export const BUNDLED_TEST_SCHEMA = fileURLToPath(
  new URL('../../packs/pack-test.schema.json', import.meta.url),
);

/** A new pack's name: what `name` in pack.yml accepts. */
export const packName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]*$/,
    'must match [a-z][a-z0-9-]* (lowercase letters, digits and -, starting with a letter)',
  )
  .max(32, 'must be at most 32 characters');

/** "habit-coach" → "Habit Coach". */
export function displayNameOf(name: string): string {
  return name
    .split('-')
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}

/**
 * The files of a new, working pack named `name` (paths relative to its folder): a manifest
 * that points editors at the JSON Schema (`schemaPath`, relative to the pack folder), a
 * persona, one skill with a command, an owned table, a migrations folder and the two note
 * templates, and a first test (`tests/notes.yml`, its schema at `testSchemaPath`, relative to
 * the tests folder). It passes `satchel pack validate` and `satchel pack test` as written.
 */
export function scaffoldPack(
  name: string,
  schemaPath: string,
  testSchemaPath = schemaPath.replace(/pack\.schema\.json$/, 'pack-test.schema.json'),
): Record<string, string> {
  const title = displayNameOf(name);
  return {
    'pack.yml': manifest(name, title, schemaPath),
    'SOUL.md': soul(title),
    'skills/notes/SKILL.md': skill,
    'schema.sql': schemaSql(title),
    'migrations/README.md': migrationsReadme,
    'templates/USER.md':
      '# About the user\n\n## Name\n<!-- how to address the user -->\n\n## Language\n<!-- the language to answer in -->\n',
    'tests/notes.yml': firstTest(testSchemaPath),
    'templates/MEMORY.md': `# What ${title} knows\n\n<!-- lasting facts and agreements; data lives in the database -->\n`,
  };
}

function manifest(name: string, title: string, schemaPath: string): string {
  return `${schemaComment(schemaPath)}
# A satchel pack; docs/PACKS.md describes every field. The name equals the folder name.
name: ${name}
version: 0.1.0
display_name: ${title}
description: Keeps short notes for the user and shows them on request.
# Folders under skills/, each with a SKILL.md.
skills: [notes]
schema:
  # The tables db_write may change (created by schema.sql or a migration).
  owned_tables: [notes]
# The core tools the model may use in this pack.
tools: [memory, skill_view, db_query, db_write, send_message, ask_user, schedule]
# Jobs for every chat bound to this pack (cron: minute hour day month weekday, read in
# SATCHEL_TIMEZONE); a run that answers exactly [SILENT] sends nothing.
# cron:
#   - id: morning-notes
#     schedule: "0 8 * * *"
#     skill: notes
# Let a job's own run create jobs with the schedule tool (off: jobs cannot create jobs).
# jobs_may_schedule: true
# This pack's own daily caps, on top of the global ones.
# quota:
#   daily_tokens: 100000
#   daily_usd: 0.2
# Answer this pack's turns with another model.
# model: openai:gpt-4.1-mini
# Values the operator sets as SATCHEL_PACK_<PACK>_<NAME>, and MCP servers whose tools the
# model gets as <name>__<tool>; a secret comes from a setting, never from this file.
# settings:
#   - name: files_token
#     description: API token of the files service.
#     secret: true
# mcp:
#   - name: files
#     command: node
#     args: [servers/files.mjs]
#     env:
#       FILES_TOKEN: \${settings.files_token}
`;
}

function soul(title: string): string {
  return `# ${title}

You are a concise, friendly assistant that keeps the user's notes.

## Rules
- **The database is the truth.** Read it (\`db_query\`) before you say what is saved; never
  invent notes.
- **Load the skill first.** Before saving or listing notes, load the \`notes\` skill with
  \`skill_view\` if its instructions are not already in front of you.
- **Be brief.** One or two sentences per reply.
- **Memory:** keep USER.md about the person and MEMORY.md about lasting agreements; update
  them with \`memory\` only for things that stay true.
`;
}

const skill = `---
name: notes
description: Save something the user wants to remember, or show the notes saved so far.
command: true
---
# Notes

Use this when the user asks you to remember something, asks what they saved, or sends
\`/notes\`.

## Save
Insert the note with \`db_write\`:
\`{ "action": "insert", "table": "notes", "values": { "body": "<the user's words>" } }\`
Then confirm in one short sentence.

## List
When the user sends \`/notes\` alone or asks what is saved, read the latest ones with
\`db_query\`:
\`\`\`sql
SELECT id, body, created_at FROM notes ORDER BY id DESC LIMIT 10
\`\`\`
Show them as a short list. If there are none, say so and how to add one.
`;

function firstTest(schemaPath: string): string {
  return `${schemaComment(schemaPath)}
# Run with: npx satchel pack test <folder of this pack>. The model is scripted: each turn lists
# the tool calls it makes (the SQL your skill tells it to run), then its answer; the tools
# and the database are real, on a fresh home, at the fixed time below. docs/PACKS.md tells more.
now: 2026-01-05T09:00:00Z
tests:
  - name: saves a note and lists it
    turns:
      - user: remember that the spare key is under the blue pot
        model:
          - tool: db_write
            args: { action: insert, table: notes, values: { body: the spare key is under the blue pot } }
          - answer: Saved.
        expect:
          tool_ok: [db_write]
          db:
            sql: SELECT body FROM notes
            rows: [{ body: the spare key is under the blue pot }]
      - user: /notes
        model:
          - tool: db_query
            args: { sql: "SELECT id, body, created_at FROM notes ORDER BY id DESC LIMIT 10" }
          - answer: "1. the spare key is under the blue pot"
        expect:
          tool_ok: [db_query]
          reply_contains: [blue pot]
`;
}

function schemaSql(title: string): string {
  return `-- ${title}. Migration zero: re-applied at every start, so every statement must be
-- idempotent (IF NOT EXISTS). Once the pack is in use, change its tables with numbered
-- files in migrations/ (0001_add_tags.sql, ...), not here.

CREATE TABLE IF NOT EXISTS notes (
  id          INTEGER PRIMARY KEY,
  body        TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
`;
}

const migrationsReadme = `# Migrations

How this pack's database changes once people use it. Each change is a file
\`NNNN_name.sql\`, numbered from 0001 without gaps, e.g. \`0001_add_tags.sql\`:

\`\`\`sql
ALTER TABLE notes ADD COLUMN tags TEXT;
\`\`\`

At every start satchel applies schema.sql, then each migration the database has not had
yet, in order, each in its own transaction (\`PRAGMA user_version\` records the last one).
A migration that fails is rolled back and the pack is skipped with the file and the error;
its data stays as it was. Never edit a migration that has been released: add a new one.
Do not write BEGIN or COMMIT. \`npx satchel pack validate\` tries them all on a scratch database.
`;
