/**
 * The compatibility matrix: any number of reports (each a pooler, mode, version or
 * configuration) merged into one table, checks as rows and targets as columns, each cell the
 * outcome and verdict that target gave. The first column is the reference: a cell whose outcome
 * differs from it is marked, which is what a reader scans for ("where does statement mode
 * differ from transaction mode?"). Built from reports only, so shards of a CI matrix (one job
 * per pooler, version or mode) are merged afterwards with `pooltest matrix`.
 */
import { PooltestError } from '../engine/record/errors.js';
import { sweepState, type Report, type Severity, type SweepState, type Verdict } from '../engine/types.js';
import { sweepText } from './sweep-text.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { poolerName, targetText } from './report-text.js';
import { bySeverity } from './severity.js';
import { measureText } from './measure-text.js';

/** Bumped when a field of {@link Matrix} changes meaning or disappears. */
export const MATRIX_VERSION = 1;

/** One target: a report, named. */
export interface MatrixColumn {
  name: string;
  target: string;
  mode: string;
  pooler: string | null;
  server: string;
  profile: string | null;
  runId: string;
  startedAt: string;
  /** The report's sweep was clean; null when it ran none. False for dirty and unknown alike. */
  sweepClean: boolean | null;
  /** The report's own sweep state; null when it ran none (absent in matrices written before it). */
  sweep?: SweepState | null;
  /** The report's own sweep sentence without `Sweep: ` (`unknown - could not look for leftovers: ...`). */
  sweepText?: string | null;
}

export interface MatrixCell {
  /** null: inconclusive or skipped, or the check was not in that report (`verdict` null too). */
  outcome: string | null;
  verdict: Verdict | null;
  /** Both this and the first column ran the check, and the outcomes differ. */
  differs: boolean;
  /** The outcome breaks an application written for a direct connection. */
  breaks: boolean;
  /**
   * A measured check's figure behind its label (`1.12x [0.95-1.31]` for capacity/connect-churn),
   * from the report's facts (reporters/measure-text.ts); absent in matrices written before it.
   */
  measure?: string | null;
  /** Why the check could not conclude (the run's stated reason), on an inconclusive cell only. */
  reason?: string;
  /**
   * Every outcome this target was seen to give across runs, where a page that merges several
   * runs records that a cell varies (docs/compatibility.md); `outcome` is then the last run's.
   */
  seen?: string[];
}

export interface MatrixRow {
  id: string;
  title: string;
  severity: Severity;
  cells: MatrixCell[];
}

/** What `pooltest matrix --json` writes. */
export interface Matrix {
  kind: 'pooltest-matrix';
  version: number;
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

/** A report and, optionally, the column name it was given (`NAME=FILE`). */
export interface NamedReport {
  report: Report;
  name?: string;
  /** Where it came from, for error messages. */
  source: string;
}

/**
 * Merges `reports` in the order given. REPORT_DUPLICATE when two reports are the same run or
 * would get the same column name (name them with `NAME=FILE`).
 */
export function buildMatrix(reports: readonly NamedReport[]): Matrix {
  const columns = reports.map((r) => column(r));
  for (let i = 0; i < reports.length; i++) {
    for (let j = 0; j < i; j++) {
      if (columns[i]!.runId === columns[j]!.runId && columns[i]!.startedAt === columns[j]!.startedAt) {
        throw new PooltestError(
          'REPORT_DUPLICATE',
          `${reports[i]!.source} and ${reports[j]!.source} are the same run (${columns[i]!.runId}): give each target once`,
        );
      }
      if (columns[i]!.name === columns[j]!.name) {
        throw new PooltestError(
          'REPORT_DUPLICATE',
          `${reports[j]!.source} and ${reports[i]!.source} both make a column "${columns[i]!.name}": name them apart, e.g. pooltest matrix a=${reports[j]!.source} b=${reports[i]!.source}`,
        );
      }
    }
  }
  // Rows: every check any report has, in the order reports list them, worst severity first.
  const seen = new Map<string, { id: string; title: string; severity: Severity }>();
  for (const { report } of reports)
    for (const c of report.checks)
      if (!seen.has(c.id)) seen.set(c.id, { id: c.id, title: c.title, severity: c.severity });
  const rows = bySeverity([...seen.values()]).map((row): MatrixRow => {
    const found = reports.map(({ report }) => report.checks.find((c) => c.id === row.id) ?? null);
    const first = found[0] ?? null;
    return {
      ...row,
      cells: found.map((c) => {
        const measure = c ? measureText(c) : null;
        return {
          outcome: c?.outcome ?? null,
          verdict: c?.verdict ?? null,
          // A check one of the two reports does not have is absent, not different.
          differs: c !== null && first !== null && c.outcome !== first.outcome,
          breaks: outcomeBreaks(c?.outcome ?? null) === true,
          // Only a measured check has one: the other cells stay as they were.
          ...(measure ? { measure } : {}),
          // The reason travels with the cell: a matrix without it shows a bare "inconclusive".
          ...(c?.verdict === 'inconclusive' && c.reason ? { reason: c.reason } : {}),
        };
      }),
    };
  });
  return { kind: 'pooltest-matrix', version: MATRIX_VERSION, columns, rows };
}

/** `PgBouncer 1.18.0 transaction on PG 15`: who answered, in which mode, on which server. */
export function columnName(r: Report): string {
  const who = poolerName(r.discovery.pooler) ?? (r.discovery.mode === 'direct' ? 'PostgreSQL' : 'unidentified pooler');
  return `${who} ${r.discovery.mode} on PG ${Math.floor(r.discovery.serverVersionNum / 10000)}`;
}

function column({ report: r, name }: NamedReport): MatrixColumn {
  return {
    name: name ?? columnName(r),
    target: targetText(r.target),
    mode: r.discovery.mode,
    pooler: poolerName(r.discovery.pooler),
    server: r.discovery.serverVersion,
    profile: r.profile?.name ?? null,
    runId: r.runId,
    startedAt: r.startedAt,
    sweepClean: r.sweep ? r.sweep.clean : null,
    sweep: r.sweep ? sweepState(r.sweep) : null,
    sweepText: r.sweep ? sweepText(r.sweep).text.replace(/^Sweep: /, '') : null,
  };
}

/**
 * A column's sweep as its report said it: `clean (...)`, `DIRTY - ...`, `unknown - could not
 * look for leftovers: ...`, or `not run`. A matrix written before the state was kept knows only
 * clean or not: "not clean" then, never "dirty" for a sweep that may have been unable to look.
 */
export function columnSweep(c: MatrixColumn): { state: SweepState | 'not run' | 'not clean'; text: string } {
  if (c.sweep !== undefined) {
    if (c.sweep === null) return { state: 'not run', text: 'not run' };
    return { state: c.sweep, text: c.sweepText ?? c.sweep };
  }
  if (c.sweepClean === null) return { state: 'not run', text: 'not run' };
  return c.sweepClean
    ? { state: 'clean', text: 'clean' }
    : { state: 'not clean', text: 'not clean (dirty or unknown: this matrix predates the sweep state)' };
}

/** Checks whose outcome differs between any two columns. */
export function differingRows(m: Matrix): MatrixRow[] {
  return m.rows.filter((r) => r.cells.some((c) => c.differs));
}
