/**
 * Reading reports older than this version. Schema 1 had no `observed` verdict: a check with an
 * outcome and no expectation was `pass`, and `summary.pass` counted it. Schema 2 calls that
 * `observed` and keeps `pass` for "matched an expectation", so an old report is upgraded on
 * read, by the same rule the judge now applies, and compares like a new one.
 */
import type { CheckResult, Report } from '../engine/types.js';

/** Schema versions this version can read. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2];

/**
 * Returns `report` as schema 2: schema 1's `pass` with `expected: null` becomes `observed`, and
 * the summary gains `observed` (and `strict: false`, the only mode schema 1 had). Reports of
 * schema 2 are returned as they are. Works on the parts it touches; the rest is kept.
 */
export function upgradeReport<R extends Pick<Report, 'checks'> & { schemaVersion?: unknown; summary?: unknown }>(
  report: R,
): R {
  if (report.schemaVersion !== 1) return report;
  const checks = report.checks.map((c): CheckResult =>
    c.verdict === 'pass' && c.expected === null ? { ...c, verdict: 'observed' } : c,
  );
  const upgraded = { ...report, schemaVersion: 2, checks };
  if (typeof report.summary === 'object' && report.summary !== null) {
    const count = (v: string): number => checks.filter((c) => c.verdict === v).length;
    upgraded.summary = {
      ...(report.summary as object),
      pass: count('pass'),
      observed: count('observed'),
      strict: false,
    };
  }
  return upgraded;
}
