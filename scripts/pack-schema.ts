// Writes packs/pack.schema.json and packs/pack-test.schema.json from their zod schemas
// (`npm run schema`). test/unit/pack-schema.test.ts fails when a committed file is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PACK_TEST_SCHEMA_FILE, packTestJsonSchema } from '../src/pack-test/test-file.ts';
import { PACK_SCHEMA_FILE, packJsonSchema } from '../src/packs/json-schema.ts';

for (const [name, schema] of [
  [PACK_SCHEMA_FILE, packJsonSchema()],
  [PACK_TEST_SCHEMA_FILE, packTestJsonSchema()],
] as const) {
  const file = fileURLToPath(new URL(`../${name}`, import.meta.url));
  writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
  process.stdout.write(`wrote ${name}\n`);
}
