/**
 * `npm run matrix:docs -- --only NAME` re-runs some columns and keeps the others from the
 * committed page. It crashed in sweepText on every kept column whose sweep was known (red
 * before): the report rebuilt from the page carried `{ clean }` as its sweep, and the matrix
 * renders a report's sweep in words from the backends visited, which the page does not keep.
 *
 * Here the committed docs/compatibility.json is the page, and the one re-run column is a real
 * stored run (PostgreSQL direct, test/judges/reports): no fixture starts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { regenerate } from '../../bench/compatibility.js';
import { COMPAT_FILES, type CompatTarget } from '../../bench/compatibility-targets.js';
import type { Matrix } from '../../reporters/matrix.js';
import type { Report } from '../../engine/types.js';
import { directReport } from './samples.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = (): Matrix => JSON.parse(readFileSync(path.join(REPO, COMPAT_FILES.json), 'utf8')) as Matrix;

describe('matrix:docs --only keeps the columns it does not run', () => {
  test('kept columns whose sweep was clean are merged without a crash, their sweep and cells as committed', async () => {
    const committed = page();
    const rerun = committed.columns[0]!.name;
    // The page this test reads has kept columns with a known sweep: what crashed.
    expect(committed.columns.slice(1).some((c) => typeof c.sweepClean === 'boolean')).toBe(true);
    const ran: string[] = [];
    const runOne = (t: CompatTarget): Promise<Report> => {
      ran.push(t.name);
      return Promise.resolve(directReport());
    };
    const m = await regenerate(committed, [rerun], runOne);
    expect(ran).toEqual([rerun]);
    expect(m.columns.find((c) => c.name === rerun)?.runId).toBe(directReport().runId);
    for (const was of committed.columns.filter((c) => c.name !== rerun)) {
      const col = m.columns.find((c) => c.name === was.name);
      expect(col, was.name).toBeDefined();
      expect({ clean: col!.sweepClean, sweep: col!.sweep, text: col!.sweepText }).toEqual({
        clean: was.sweepClean,
        sweep: was.sweep,
        text: was.sweepText,
      });
      const i = committed.columns.indexOf(was);
      const j = m.columns.indexOf(col!);
      for (const row of committed.rows) {
        const now = m.rows.find((r) => r.id === row.id);
        if (row.cells[i]!.verdict === null) continue;
        expect(now?.cells[j]?.outcome, `${was.name} ${row.id}`).toBe(row.cells[i]!.outcome);
      }
    }
  });

  test('control: the re-run column takes its sweep from its own report, not from the page', async () => {
    const committed = page();
    const rerun = committed.columns[0]!.name;
    const report = directReport();
    const m = await regenerate(committed, [rerun], () => Promise.resolve(report));
    const col = m.columns.find((c) => c.name === rerun)!;
    expect(report.sweep).not.toBeNull();
    expect(col.sweep).not.toBeUndefined();
    expect(col.sweepText).toMatch(/backend/);
  });
});
