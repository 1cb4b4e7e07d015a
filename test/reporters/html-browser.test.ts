/**
 * The HTML report in a real browser (Debian's Chromium, driven by playwright-core): a run of
 * the catalogue against PgBouncer in transaction mode writes report.html through the CLI, and
 * the rendered page must show a diagram per check with the recorded backends in it, overflow
 * nowhere, log no console error (a Content Security Policy violation would be one), and filter
 * by severity and verdict; at 800 px every diagram's step text, the DECISIVE line first, reads
 * without scrolling sideways and the checks table has titles (test/support/report-at-800.ts). A
 * hostile variant proves report text cannot run a script. The screenshots are kept under
 * test-artifacts/ (gitignored) for a human to look at.
 *
 * Without /usr/bin/chromium the test says so and skips (scripts/setup.sh installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import type { Report } from '../../engine/types.js';
import { REPO, runCli } from '../support/cli.js';
import { screenshot, textInView, titlesInTable } from '../support/report-at-800.js';
import { hostileReport } from './html-samples.js';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = existsSync(CHROMIUM)
  ? null
  : `Chromium not found at ${CHROMIUM}: install it (apt-get install chromium, or scripts/setup.sh) to run the browser test of the HTML report`;
// The machine may have no network: without these, Chromium stalls on connection attempts.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = path.join(REPO, 'test-artifacts');

test.runIf(SKIP !== null)('says why the browser test of the HTML report is skipped', () => {
  console.warn(SKIP);
});

describe.skipIf(SKIP !== null)('HTML report in Chromium', () => {
  let stack: Stack;
  let dir: string;
  let report: Report;
  let html: string;
  let context: BrowserContext;
  let launching: Promise<BrowserContext> | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-html-'));
    // Chromium starts while the stack starts and the catalogue runs (it needs neither): its
    // start is mostly waiting on its own processes, and the run's checks tolerate the company.
    launching = chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      timeout: 30_000,
      viewport: { width: 1280, height: 900 },
    });
    // A failed launch is reported where it is awaited, below; not as an unhandled rejection.
    launching.catch(() => undefined);
    stack = await startStack('pgbouncer-transaction');
    const run = await runCli(
      [
        '--target',
        stack.target.url(),
        '--direct',
        stack.postgres.url(),
        '--profile',
        'pgbouncer-transaction',
        '--html',
        path.join(dir, 'report.html'),
        '--no-store',
      ],
      { json: true },
    );
    expect(run.code, run.stderr).toBe(0);
    report = run.report!;
    html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    writeFileSync(path.join(dir, 'hostile.html'), renderHtml(hostileReport(report)));
    context = await launching;
  }, 120_000);
  afterAll(async () => {
    // Awaited even when the run failed before the context was taken: no Chromium left running.
    await (await launching?.catch(() => undefined))?.close();
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string, width = 1280): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`file://${path.join(dir, file)}`);
    return page;
  }

  test('a diagram per check holds the backends its steps recorded; nothing overflows; no console errors', async () => {
    expect(html).toContain('<svg class="seq"');
    for (const width of [1280, 720]) {
      const page = await open('report.html', width);
      const drawn = await page.$$eval('svg.seq', (svgs) =>
        svgs.map((s) => ({
          id: s.getAttribute('data-check'),
          pids: [...s.querySelectorAll('.lifeline.backend')].map((b) => b.getAttribute('data-pid')),
          visible: s.getBoundingClientRect().width > 0,
        })),
      );
      const withSteps = report.checks.filter((c) => c.steps.length > 0);
      expect(drawn.map((d) => d.id).sort()).toEqual(withSteps.map((c) => c.id).sort());
      for (const c of withSteps) {
        const d = drawn.find((x) => x.id === c.id)!;
        expect(d.visible, c.id).toBe(true);
        const recorded = [
          ...new Set(
            c.steps
              .map((s) => s.pid)
              .filter((p) => p !== null)
              .map(String),
          ),
        ];
        // A folded diagram (the burst's 100 clients) draws some clients; every pid it shows is recorded.
        if (new Set(c.steps.map((s) => s.session)).size <= 10)
          expect(d.pids.filter(Boolean).sort(), c.id).toEqual(recorded.sort());
        else
          expect(
            d.pids.filter(Boolean).every((p) => recorded.includes(p!)),
            c.id,
          ).toBe(true);
      }
      const overflow = await page.evaluate(() => {
        const wide = (el: Element): boolean => el.scrollWidth > el.clientWidth + 1;
        const doc = document.documentElement;
        return {
          page: doc.scrollWidth > doc.clientWidth + 1 || wide(document.body),
          // A diagram scrolls inside its own box (it keeps its text at its size); the box it sits in may not grow.
          boxes: [...document.querySelectorAll('.panel, .check')].filter(wide).map((el) => el.id || el.className),
        };
      });
      expect(overflow, `at ${width}px`).toEqual({ page: false, boxes: [] });
      // Control: the same measure catches a card that does overflow.
      const control = await page.evaluate(() => {
        const card = document.querySelector('section.check')!;
        const wide = document.createElement('div');
        wide.style.width = '5000px';
        wide.textContent = 'x';
        card.append(wide);
        const caught = card.scrollWidth > card.clientWidth + 1;
        wide.remove();
        return caught;
      });
      expect(control).toBe(true);
      if (width === 1280) {
        mkdirSync(ARTIFACTS, { recursive: true });
        const shot = path.join(ARTIFACTS, 'html-report.png');
        // For a person to look at, not an assertion: a busy machine that cannot paint the whole
        // page within the bound says so instead of failing the test.
        await page
          .screenshot({ path: shot, fullPage: true })
          .then(() => console.log(`HTML report screenshot: ${shot}`))
          .catch((err: Error) => console.warn(`no screenshot of the HTML report: ${err.message.split('\n')[0]}`));
      }
      await page.close();
    }
    expect(errors).toEqual([]);
  });

  test('at 800 px the SQL and the DECISIVE line of every diagram read without scrolling sideways; the checks table has titles', async () => {
    const page = await open('report.html', 800);
    await textInView(page);
    await titlesInTable(page, report);
    await screenshot(page, 'html-report-800.png');
    await page.close();
    expect(errors).toEqual([]);
  });

  test("the crossing is highlighted on the observer step that ran on A's backend", async () => {
    const page = await open('report.html');
    const leak = report.checks.find((c) => c.id === 'session/set-leak')!;
    const create = leak.steps.find((s) => s.tag === 'A.create')!;
    const crossing = await page.$$eval('svg.seq[data-check="session/set-leak"] .step.crossing.reached', (els) =>
      els.map((e) => ({
        pid: e.getAttribute('data-pid'),
        session: e.getAttribute('data-session'),
        fill: getComputedStyle(e.querySelector('line')!).stroke,
      })),
    );
    expect(crossing).toEqual([{ pid: String(create.pid), session: 'O1', fill: expect.stringMatching(/^rgb\(/) }]);
    expect(await page.locator('svg.seq[data-check="session/set-local"] .crossing.reached').count()).toBe(0);
    await page.close();
  });

  test('filters hide and show checks by verdict, severity and breaking outcome', async () => {
    const page = await open('report.html');
    const visible = async (): Promise<string[]> =>
      page.$$eval('section.check', (els) =>
        els.filter((e) => !(e as HTMLElement).hidden).map((e) => e.getAttribute('data-id')!),
      );
    const all = report.checks.map((c) => c.id).sort();
    expect((await visible()).sort()).toEqual(all);
    await page.locator('input[data-filter="verdict"][value="pass"]').uncheck();
    const notPass = report.checks.filter((c) => c.verdict !== 'pass').map((c) => c.id);
    // The control: a real run has checks that are not a pass (skipped fixture-only checks at least).
    expect(notPass.length).toBeGreaterThan(0);
    expect((await visible()).sort()).toEqual(notPass.sort());
    expect(await page.locator('#shown').textContent()).toBe(
      String(report.checks.filter((c) => c.verdict !== 'pass').length),
    );
    await page.locator('input[data-filter="verdict"][value="pass"]').check();
    await page.locator('input[data-filter="severity"][value="security"]').uncheck();
    const security = report.checks.filter((c) => c.severity === 'security').map((c) => c.id);
    expect(security.length).toBeGreaterThan(0);
    expect((await visible()).filter((id) => security.includes(id))).toEqual([]);
    await page.locator('input[data-filter="severity"][value="security"]').check();
    await page.locator('#f-breaks').check();
    const shown = await visible();
    expect(shown).toContain('session/set-leak');
    expect(shown).not.toContain('session/set-local');
    await page.close();
    expect(errors).toEqual([]);
  });

  test('hostile report text stays text: no script runs, no element is injected', async () => {
    const page = await open('hostile.html');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('img, iframe, main b[onmouseover]').count()).toBe(0);
    expect(await page.locator('svg.seq[data-check="session/set-leak"] text.sql').first().textContent()).toContain(
      '</text></svg><script>',
    );
    await page.close();
    expect(errors).toEqual([]);
  });
});
