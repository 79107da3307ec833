import type { TestProject } from 'vitest/node';
import { launchChromiumServer } from './chromium.ts';

/**
 * Global setup of the `process` project: one Chromium for the whole run, which every browser
 * test file connects to with a context of its own (test/support/chromium.ts), instead of a
 * browser started (about a second of two cores) for each file. Without Chromium nothing
 * starts, and each browser file says it is skipped (or fails, in CI).
 */
export default async function setup(project: TestProject) {
  const server = await launchChromiumServer();
  if (!server) return;
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return async () => {
    await server.close();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumEndpoint: string | undefined;
  }
}
