/**
 * `pooltest drivers --html`: one page from a recorded drivers run through PgBouncer 1.18
 * transaction mode (test/recorded/drivers-pgbouncer-transaction.json), with a sequence diagram
 * per driver scenario drawn from that scenario's steps only, the driver's error written out in
 * it, and nothing from the report able to run in the page.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { DriversReport } from '../../drivers/run-drivers.js';
import { renderDriversHtml } from '../../reporters/drivers-html.js';

const report = JSON.parse(
  readFileSync(new URL('../recorded/drivers-pgbouncer-transaction.json', import.meta.url), 'utf8'),
) as DriversReport;
const html = renderDriversHtml(report);

/** The card of one result, from its opening tag to its end. */
function card(page: string, id: string): string {
  const at = page.indexOf(`data-id="${id}"`);
  if (at < 0) throw new Error(`no card for ${id}`);
  return page.slice(at, page.indexOf('</section>', at));
}

describe('the drivers HTML report', () => {
  test('every result has a card, and every result that ran has its own sequence diagram', () => {
    for (const r of report.results) {
      const c = card(html, r.id);
      expect(c, r.id).toContain(`<svg class="seq"`);
      expect(c, r.id).toContain(`data-check="${r.id}"`);
    }
    expect(html.match(/<svg class="seq"/g)?.length).toBe(report.results.length);
  });

  test("a failed scenario's diagram writes the driver's error out; its phase's steps only", () => {
    const c = card(html, 'asyncpg/moved@default');
    const moved = c.slice(c.indexOf('<svg'), c.indexOf('</svg>'));
    expect(moved).toMatch(/26000/);
    expect(moved).toMatch(/__asyncpg_stmt_\w+__/);
    // The cursor phase of the same record is not in the moved scenario's picture.
    expect(moved).not.toContain('cursor:A.create');
    expect(card(html, 'asyncpg/cursor@default')).toContain('cursor:A.create');
  });

  test('control: a working configuration shows no error in its moved diagram', () => {
    const c = card(html, 'asyncpg/moved@statement_cache_size=0');
    expect(c.slice(c.indexOf('<svg'), c.indexOf('</svg>'))).not.toMatch(/26000|does not exist/);
  });

  test('report text is escaped and the page admits no script', () => {
    const hostile = structuredClone(report);
    hostile.results[0]!.reason = '<script>alert(1)</script> & <img src=x onerror=alert(2)>';
    const page = renderDriversHtml(hostile);
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toMatch(
      /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"/,
    );
    expect(page).not.toMatch(/<script/);
  });
});
