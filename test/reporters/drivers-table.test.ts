/**
 * The drivers x poolers table must be what the stored runs say: docs/drivers.md and the drivers
 * section of docs/compatibility.md and .html are renderings of docs/drivers.json (written by
 * `npm run docs:drivers` from real runs against every fixture of bench/drivers-runs.ts). This
 * test runs nothing: it holds the pages to the stored results, and the stored results to the
 * drivers profiles users gate on (`pooltest drivers --profile direct|pgbouncer-transaction`).
 * The live runs are re-checked elsewhere: test/drivers/agents.test.ts (every agent against
 * direct PostgreSQL and PgBouncer 1.18) and tracking-pooler.test.ts (PgBouncer 1.25.2).
 * When this fails after a deliberate change: `npm run docs:drivers` (all columns, or name some).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DRIVER_STACKS, DRIVERS_FILES, storedDriverRuns } from '../../bench/drivers-runs.js';
import { COMPAT_FILES } from '../../bench/compatibility-targets.js';
import { DRIVER_PROFILES } from '../../drivers/profiles.js';
import { driversSectionHtml, driversSectionMarkdown, renderDriversDoc } from '../../reporters/drivers-table.js';
import { REPO } from '../support/cli.js';

const stored = storedDriverRuns(REPO);
const read = (file: string) => readFileSync(path.join(REPO, file), 'utf8');

describe('the drivers x poolers table', () => {
  test('has a column for every fixture of bench/drivers-runs.ts, and lists the pending ones with their reason', () => {
    expect(stored.columns.map((c) => c.stack)).toEqual(DRIVER_STACKS.filter((s) => !s.pending).map((s) => s.stack));
    expect(stored.pending.map((p) => p.stack)).toEqual(DRIVER_STACKS.filter((s) => s.pending).map((s) => s.stack));
    for (const c of stored.columns) expect(c.results.length, c.stack).toBeGreaterThan(30);
  });

  test('docs/drivers.md is the rendering of the stored runs', () => {
    expect(read(DRIVERS_FILES.markdown)).toBe(renderDriversDoc(stored));
  });

  test('docs/compatibility.md and .html carry the same table', () => {
    expect(read(COMPAT_FILES.markdown)).toContain(driversSectionMarkdown(stored));
    expect(read(COMPAT_FILES.html)).toContain(driversSectionHtml(stored));
  });

  test('control: one stored outcome changed makes the pages differ', () => {
    const changed = structuredClone(stored);
    const r = changed.columns[0]!.results[0]!;
    r.outcome = r.outcome === 'works' ? 'failed' : 'works';
    expect(renderDriversDoc(changed)).not.toBe(read(DRIVERS_FILES.markdown));
    expect(read(COMPAT_FILES.markdown)).not.toContain(driversSectionMarkdown(changed));
  });

  // Every outcome that breaks an application is marked as such on the HTML page, not only
  // `failed` (a stalled or split batch breaks one too); `retried` and `works` do not.
  test('the HTML marks every breaking outcome, and only those', () => {
    const one = (outcome: string) => {
      const changed = structuredClone(stored);
      for (const c of changed.columns) for (const r of c.results) r.outcome = outcome;
      return driversSectionHtml(changed);
    };
    for (const outcome of ['failed', 'stalled', 'split']) expect(one(outcome), outcome).toContain('class="breaks"');
    for (const outcome of ['works', 'retried']) expect(one(outcome), outcome).not.toContain('class="breaks"');
  });

  // The stored columns agree with the profiles a user's CI asserts: a judge change that moves a
  // cell must move the profile too (or the other way round), and the page cannot go blind.
  test.each(['direct', 'pgbouncer-transaction'])('the %s column gives what its drivers profile expects', (stack) => {
    const column = stored.columns.find((c) => c.stack === stack)!;
    const expected = DRIVER_PROFILES[stack]!();
    // A result the profile leaves open (it varies between runs) is not compared.
    const concluded = column.results.filter((r) => r.outcome !== null && r.id in expected);
    expect(concluded.length, 'at most two inconclusive').toBeGreaterThanOrEqual(Object.keys(expected).length - 2);
    expect(Object.fromEntries(concluded.map((r) => [r.id, r.outcome]))).toEqual(
      Object.fromEntries(concluded.map((r) => [r.id, expected[r.id]])),
    );
  });
});
