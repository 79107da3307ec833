import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, type BrowserServer, chromium, type Page } from 'playwright-core';
import { expect, inject, it } from 'vitest';

/**
 * Debian's `chromium` package, driven by playwright-core: no browser download.
 * `CHROMIUM_PATH` points elsewhere (another distribution's binary).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
export const inCi = process.env.CI === 'true';
export const haveChromium = existsSync(CHROMIUM);

/**
 * Whether a browser test file is skipped: no Chromium here, and not CI (where the browser
 * tests must run). Says so on the console, naming the file's `tag` and `what` it tests.
 */
export function skipBrowser(tag: string, what: string): boolean {
  const skip = !haveChromium && !inCi;
  if (skip)
    console.warn(
      `[${tag}] SKIPPED: no Chromium at ${CHROMIUM}. Install it to run the ` +
        `real-browser test of ${what}: sudo apt-get install chromium`,
    );
  return skip;
}

export type ContextOptions = Omit<
  NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>,
  'executablePath' | 'args'
>;

/** Chromium on a fresh profile in a temporary directory; `close` also removes the profile. */
export interface ChromiumSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Flags for a test that records voice: Chromium's fake microphone (a beep) and an automatic
 * yes to the page's request for it.
 */
export const FAKE_MICROPHONE = [
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
];

/**
 * The run's one Chromium (test/support/chromium-server.ts starts it before the `process`
 * project's files), with the fake microphone for the files that record: a page asks for the
 * microphone only when a test presses its button.
 */
export async function launchChromiumServer(): Promise<BrowserServer | undefined> {
  if (!haveChromium) return undefined;
  return chromium.launchServer({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...FAKE_MICROPHONE],
  });
}

/**
 * A fresh context of the run's Chromium (cookies, storage and permissions of its own), or,
 * where no Chromium was started for the run (a browser file run in another project), a
 * Chromium of its own on a fresh profile. `extraArgs` apply to the latter only: the run's
 * Chromium has the fake microphone already.
 */
export async function launchChromium(
  options: ContextOptions,
  extraArgs: readonly string[] = [],
): Promise<ChromiumSession> {
  const endpoint = inject('chromiumEndpoint');
  if (endpoint) {
    const browser = await chromium.connect(endpoint);
    const context = await browser.newContext(options);
    return {
      context,
      async close() {
        await context.close();
        await browser.close();
      },
    };
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'satchel-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      ...options,
    });
    return {
      context,
      async close() {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Console errors and warnings, and uncaught page errors, as they happen. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}

/**
 * Refreshes `file` (a screenshot in docs/, shown in the README) only when asked to with
 * SATCHEL_SCREENSHOTS=1: a plain test run never rewrites a tracked file (font rendering
 * differs between machines, so each run would leave the work tree changed).
 */
export function saveScreenshot(file: string, png: Buffer): void {
  expect(png.length).toBeLessThan(300_000);
  if (process.env.SATCHEL_SCREENSHOTS !== '1') return;
  const current = existsSync(file) ? readFileSync(file) : undefined;
  if (!current?.equals(png)) writeFileSync(file, png);
}

/**
 * The first test of a browser file (call it at describe level): without Chromium it is
 * reached only when CI=true, and there the browser test must not be skipped.
 */
export function mustHaveChromium(): void {
  it('has Chromium to drive', () => {
    if (!haveChromium)
      throw new Error(
        `CI=true and no Chromium at ${CHROMIUM}: the browser test must run in CI. ` +
          '.ci/run installs it (apt-get install -y chromium).',
      );
  });
}
