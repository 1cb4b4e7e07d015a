/**
 * The audit's exit code and what it means for the run just done, in one place: the command
 * returns it, and the terminal's last line says it (a footer explaining an exit code the run
 * did not have would mislead whoever reads a CI log).
 */
import type { AuditReport } from './audit-types.js';

/** Findings exist that typically break, but no pooler was given to confirm it (see AUDIT_USAGE). */
export const EXIT_UNCONFIRMED = 3;

/**
 * - 1: a finding breaks on the pooler it was joined with (`--report`, `--target`);
 * - 3: no pooler given, and findings typically break (`--fail-on-findings` makes that 1);
 * - 0: nothing breaks (cleanup statements never do).
 * A report that says "BREAKS" never exits 0.
 */
export function exitCode(report: AuditReport, failOnFindings: boolean): number {
  if (report.pooler.basis !== 'typical') return report.summary.breakingCount > 0 ? 1 : 0;
  if (!typicallyBreaks(report)) return 0;
  return failOnFindings ? 1 : EXIT_UNCONFIRMED;
}

/** The exit code of this run and why, as the terminal's last line says it. */
export function exitMeaning(report: AuditReport, failOnFindings: boolean): string {
  const code = exitCode(report, failOnFindings);
  if (report.pooler.basis !== 'typical')
    return code === 1 ? 'exit 1: findings break on this pooler' : 'exit 0: nothing breaks on this pooler';
  if (code === 0)
    return report.findings.length === 0
      ? 'exit 0: no statement relies on session state'
      : 'exit 0: nothing typically breaks under transaction pooling';
  if (code === 1) return 'exit 1: findings typically break under transaction pooling (--fail-on-findings)';
  return `exit ${EXIT_UNCONFIRMED}: findings typically break under transaction pooling, not confirmed on a pooler (give --report or --target; --fail-on-findings exits 1)`;
}

/** Whether, without a pooler, some finding typically breaks or is unknown (overflow counts). */
function typicallyBreaks(report: AuditReport): boolean {
  return report.findings.some((f) => f.breaks !== false) || Object.values(report.overflow).some((n) => (n ?? 0) > 0);
}
