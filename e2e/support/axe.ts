/**
 * axe-core in the journeys' Chromium: its source is injected into the page under test only (the app
 * never loads it), and a page is checked against WCAG 2.2 A and AA.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/** The critical and serious violations axe finds on what the page shows now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Colors are judged when they are final: a dialog fading in is not yet what a person reads.
  await page.evaluate(() => Promise.all((globalThis as unknown as { document: { getAnimations(): { finished: Promise<unknown> }[] } }).document.getAnimations().map((animation) => animation.finished.catch(() => undefined))));
  // Evaluated rather than added as a script tag: the app's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const page = globalThis as unknown as { document: unknown; axe: { run: (context: unknown, options: object) => Promise<{ violations: AxeViolation[] }> } };
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target, html: node.html.slice(0, 200), failureSummary: node.failureSummary })),
    }));
  }, WCAG_TAGS);
  return violations.filter((violation) => violation.impact === 'critical' || violation.impact === 'serious');
}

/** One line per violation, for a failure message a developer can act on. */
export function describeViolations(where: string, violations: AxeViolation[]): string {
  return violations
    .map((violation) => `${where}: ${violation.id} (${violation.impact}, ${violation.nodes.length} nodes): ${violation.help}\n    ${violation.nodes.slice(0, 3).map((node) => `${node.target.join(' ')} ${node.html}\n      ${(node.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`).join('\n    ')}`)
    .join('\n');
}
