/**
 * What a person at an 800 px screen needs of the HTML report, measured in the browser (issue
 * 40), for the browser tests of the report (test/reporters/diagram-browser.test.ts from
 * recorded logs, html-browser.test.ts from a real run): every diagram's step text, the DECISIVE
 * line first, inside the viewport and its diagram's box without scrolling sideways, and the
 * checks table naming each check by id and title.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Report } from '../../engine/types.js';
import { REPO } from './cli.js';

/**
 * Where each diagram's step text is on the page, unscrolled: the right edge of its widest line
 * (the page's and the diagram box's), for the decisive step and for all steps.
 */
function textEdges(
  page: Page,
): Promise<Array<{ id: string; decisive: number | null; right: number; box: number; scrolled: number }>> {
  return page.$$eval('svg.seq', (svgs) =>
    svgs.map((svg) => {
      const box = svg.closest('.diagram')!;
      const right = (els: Element[]): number => Math.max(...els.map((t) => t.getBoundingClientRect().right));
      const decisive = [...svg.querySelectorAll('g.step.decisive text')];
      return {
        id: svg.getAttribute('data-check')!,
        decisive: decisive.length > 0 ? right(decisive) : null,
        right: right([...svg.querySelectorAll('g.step text')]),
        box: box.getBoundingClientRect().right,
        scrolled: box.scrollLeft,
      };
    }),
  );
}

/** At 800 px the SQL and the DECISIVE line of every diagram read without scrolling sideways. */
export async function textInView(page: Page): Promise<void> {
  const viewport = page.viewportSize()!.width;
  const edges = await textEdges(page);
  const withDecisive = edges.filter((e) => e.decisive !== null);
  expect(withDecisive.length).toBeGreaterThanOrEqual(10);
  for (const e of edges) {
    expect(e.scrolled, e.id).toBe(0);
    if (e.decisive !== null) {
      expect(e.decisive, `${e.id}: the DECISIVE line`).toBeLessThanOrEqual(viewport);
      expect(e.decisive, `${e.id}: the DECISIVE line, inside its box`).toBeLessThanOrEqual(e.box);
    }
    expect(e.right, `${e.id}: every step's text`).toBeLessThanOrEqual(Math.min(viewport, e.box));
  }
  for (const e of withDecisive) {
    // Scrolled to (down, never sideways), the DECISIVE line is painted: what is at its start is it.
    const line = page.locator(`svg.seq[data-check="${e.id}"] g.step.decisive text.answer`).first();
    await line.scrollIntoViewIfNeeded();
    const painted = await line.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return document.elementFromPoint(r.left + 3, r.top + r.height / 2)?.closest('g.step.decisive') != null;
    });
    expect(painted, `${e.id}: the DECISIVE line is painted`).toBe(true);
  }
  // Control: text placed where the old layout put it (a column right of the arrows, about 460 px
  // in) is caught by the same measure.
  const moved = await page.addStyleTag({ content: 'svg.seq g.step text{transform:translateX(460px)}' });
  const beyond = (await textEdges(page)).filter((e) => e.decisive !== null && e.decisive > viewport);
  expect(beyond.length).toBeGreaterThan(0);
  await moved.evaluate((el) => (el as Element).remove());
}

/** The checks table names each check by id and title, as the Markdown table does. */
export async function titlesInTable(page: Page, report: Report): Promise<void> {
  const rows = await page.$$eval('#overview tbody tr', (trs) =>
    trs.map((tr) => ({
      id: tr.getAttribute('data-id')!,
      title: tr.querySelector('td .check-title')?.textContent ?? '',
      right: tr.querySelector('td')!.getBoundingClientRect().right,
    })),
  );
  expect(rows.map((r) => r.id).sort()).toEqual(report.checks.map((c) => c.id).sort());
  for (const r of rows) {
    expect(r.title, r.id).toBe(report.checks.find((c) => c.id === r.id)!.title);
    expect(r.right, r.id).toBeLessThanOrEqual(page.viewportSize()!.width);
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(path.join(REPO, 'test-artifacts'), { recursive: true });
  const shot = path.join(REPO, 'test-artifacts', name);
  // For a person to look at, not an assertion: a busy machine that cannot paint in time says so.
  await page
    .screenshot({ path: shot, fullPage: true })
    .then(() => console.log(`diagram screenshot: ${shot}`))
    .catch((err: Error) => console.warn(`no screenshot: ${err.message.split('\n')[0]}`));
}
