/**
 * The drivers HTML report's sequence diagrams as a person sees them, in Debian's Chromium
 * (driven by playwright-core) at 900 px, from a recorded drivers run through PgBouncer 1.18
 * transaction mode (no database): one diagram per driver scenario, text at its size (a wide
 * diagram scrolls inside its box, the page is not widened), every lifeline named in its legend,
 * and asyncpg's 26000 written out in its moved diagram. One page, one browser: a few seconds.
 *
 * Without /usr/bin/chromium the test says so and skips (scripts/setup.sh installs it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { expect, test } from 'vitest';
import type { DriversReport } from '../../drivers/run-drivers.js';
import { renderDriversHtml } from '../../reporters/drivers-html.js';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = existsSync(CHROMIUM) ? null : `Chromium not found at ${CHROMIUM}: install it to run this test`;

test.skipIf(SKIP !== null)(
  `driver scenarios' diagrams in Chromium: one each, text at its size, legends complete${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  async () => {
    const report = JSON.parse(
      readFileSync(new URL('../recorded/drivers-pgbouncer-transaction.json', import.meta.url), 'utf8'),
    ) as DriversReport;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-driver-diagrams-'));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      timeout: 30_000,
    });
    try {
      writeFileSync(path.join(dir, 'drivers.html'), renderDriversHtml(report));
      const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
      page.setDefaultTimeout(10_000);
      await page.goto(`file://${path.join(dir, 'drivers.html')}`);
      const drawn = await page.$$eval('svg.seq', (svgs) =>
        svgs.map((svg) => {
          const s = svg as SVGSVGElement;
          const card = s.closest('section.check')!;
          return {
            id: s.getAttribute('data-check')!,
            scale: s.getBoundingClientRect().width / s.viewBox.baseVal.width,
            text: [...s.querySelectorAll('text')].map((t) => t.textContent ?? '').join('\n'),
            lanes: [...s.querySelectorAll('.lifeline.client')].map((l) => l.getAttribute('data-session')!),
            legend: [...card.querySelectorAll('details.legend dt')].map((d) => d.textContent ?? ''),
          };
        }),
      );
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(drawn.map((d) => d.id).sort()).toEqual(report.results.map((r) => r.id).sort());
      for (const d of drawn) {
        expect(d.scale, d.id).toBeCloseTo(1, 2);
        for (const lane of d.lanes) expect(d.legend, `${d.id}: ${lane}`).toContain(lane);
      }
      expect(pageWidth).toBeLessThanOrEqual(900);
      expect(drawn.find((d) => d.id === 'asyncpg/moved@default')!.text).toMatch(/26000/);
      // Control: the advised configuration's moved diagram has no such error.
      expect(drawn.find((d) => d.id === 'asyncpg/moved@statement_cache_size=0')!.text).not.toMatch(/26000/);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  90_000,
);
