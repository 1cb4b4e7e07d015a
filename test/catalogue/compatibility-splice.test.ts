/**
 * A partial regeneration of the compatibility page (`npm run matrix:docs -- --only NAME` or
 * `--checks ID,...`) rebuilds the columns it keeps from the committed JSON. Held here, with no
 * fixture: every committed column rebuilt that way goes through the matrix builder (it once
 * crashed there, in sweepText, on a kept column's sweep) with each cell's outcome unchanged; a
 * splice replaces exactly the checks run again, in the catalogue's order; a dirty sweep of the
 * new run replaces the committed one. Control: a splice whose run found another outcome shows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { fromColumn, spliced } from '../../bench/compatibility.js';
import { COMPAT_FILES } from '../../bench/compatibility-targets.js';
import { buildMatrix, type Matrix } from '../../reporters/matrix.js';
import type { Report } from '../../engine/types.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { REPO } from '../support/cli.js';

const committed = JSON.parse(readFileSync(path.join(REPO, COMPAT_FILES.json), 'utf8')) as Matrix;

/** Each committed column's outcome per check, as the page has it. */
function outcomes(m: Matrix, column: number): Record<string, string | null> {
  return Object.fromEntries(
    m.rows.filter((r) => r.cells[column]!.verdict !== null).map((r) => [r.id, r.cells[column]!.outcome]),
  );
}

describe('columns kept from the committed page', () => {
  test('every committed column rebuilt from the page goes through the matrix builder unchanged', () => {
    const reports = committed.columns.map((c) => ({
      report: fromColumn(committed, c.name),
      name: c.name,
      source: c.name,
    }));
    const rebuilt = buildMatrix(reports);
    expect(rebuilt.columns.map((c) => c.name)).toEqual(committed.columns.map((c) => c.name));
    committed.columns.forEach((_, i) => expect(outcomes(rebuilt, i)).toEqual(outcomes(committed, i)));
  });

  test('a splice replaces the checks run again, keeps the rest, in the catalogue order', () => {
    const name = committed.columns[0]!.name;
    const base = fromColumn(committed, name);
    const [first, second] = base.checks;
    expect(first && second).toBeTruthy();
    // Control: the fresh run says something else of one check, and that is what the splice shows.
    const fresh = { ...first!, outcome: 'a fresh outcome', reason: 'run again' };
    const partial = { checks: [fresh], sweep: { clean: true } } as unknown as Report;
    const result = spliced(base, partial);
    expect(result.checks).toHaveLength(base.checks.length);
    expect(result.checks.find((c) => c.id === first!.id)?.outcome).toBe('a fresh outcome');
    expect(result.checks.find((c) => c.id === second!.id)).toEqual(second);
    const order = result.checks.map((c) => CATALOGUE.findIndex((d) => d.id === c.id));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(result.sweep).toBeNull();
  });

  test('a dirty sweep of the checks run again replaces the committed one', () => {
    const base = fromColumn(committed, committed.columns[0]!.name);
    const dirty = { clean: false, leftovers: ['backend 1: a left table'] };
    const result = spliced(base, { checks: [], sweep: dirty } as unknown as Report);
    expect(result.sweep).toEqual(dirty);
  });
});
