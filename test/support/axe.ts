import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = () =>
  readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** The elements that break the rule (CSS selectors). */
  targets: string[];
}

/**
 * axe-core's violations of its default rules on the page as it is now. The script is
 * evaluated through the browser's debugging protocol, which the pages' CSP (no inline
 * script) does not stop, and which leaves the page's own requests alone.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource());
  return page.evaluate<AxeViolation[]>(`axe.run(document).then((result) =>
    result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })))`);
}

/** The violations a page must not have: serious or critical. */
export const grave = (violations: AxeViolation[]) =>
  violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
