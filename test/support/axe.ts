// axe-core in the page under test (issue 34 item 8): the audit runs in Chromium on the DOM as the operator
// sees it, and the test fails on any serious or critical violation, listing each with the elements it found.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let source: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe on the page (or the part `include` selects); returns the serious and critical violations. */
export async function seriousViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  // Not page.addScriptTag: the console's Content-Security-Policy (script-src 'self') refuses an inline script,
  // and rightly; evaluation through the DevTools protocol is not subject to it.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate((code) => (0, eval)(code), (source ??= readFileSync(AXE, 'utf8')));
  const violations = await page.evaluate(async (context) => {
    const axe = (globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(context ? { include: [context] } : (globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  }, include ?? null);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** One line per violation and element, for a failing assertion's message. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations.flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}): ${n.target.join(' ')}`)).join('\n');
}
