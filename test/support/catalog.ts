import { createModelCatalog, type ModelCatalog } from '../../src/usage/catalog.ts';
import { parseOwnerCatalog } from '../../src/usage/catalog-file.ts';

/**
 * An owner's catalog as tests use it: models the bundled catalog leaves out, priced and
 * able to see, as an owner would add them in SATCHEL_MODELS.
 */
export const TEST_MODELS_YAML = `
openai:gpt-4.1: { input: 2, cached_input: 0.5, output: 8, images: true }
openai:gpt-4o: { input: 2.5, cached_input: 1.25, output: 10, images: true }
gemini:gemini-2.5-pro: { input: 1.25, cached_input: 0.125, output: 10, images: true }
`;

/** The bundled catalog with TEST_MODELS_YAML on top. */
export function testCatalog(file = 'models.yaml'): ModelCatalog {
  return createModelCatalog(parseOwnerCatalog(file, TEST_MODELS_YAML));
}
