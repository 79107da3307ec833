// Writes packs/pack.schema.json from the zod schema of pack.yml (`npm run schema`).
// test/unit/pack-schema.test.ts fails when the committed file is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PACK_SCHEMA_FILE, packJsonSchema } from '../src/packs/json-schema.ts';

const file = fileURLToPath(new URL(`../${PACK_SCHEMA_FILE}`, import.meta.url));
writeFileSync(file, `${JSON.stringify(packJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${PACK_SCHEMA_FILE}\n`);
