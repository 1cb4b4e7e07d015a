/**
 * The audit's exit code and what it means for the run just done: the rule shared with the watch
 * (audit/findings-exit.ts), read off an audit report. The command returns it, and the
 * terminal's last line says it (a footer explaining an exit code the run did not have would
 * mislead whoever reads a CI log).
 */
import { findingsExitCode, findingsExitMeaning, findingsVerdict } from './findings-exit.js';
import type { AuditReport } from './audit-types.js';

export { EXIT_UNCONFIRMED } from './findings-exit.js';

/** See {@link findingsExitCode}: 1 breaks on the pooler given, 3 typically breaks unconfirmed, 0 nothing breaks. */
export function exitCode(report: AuditReport, failOnFindings: boolean): number {
  return findingsExitCode(findingsVerdict(report, report.summary.breakingCount), failOnFindings);
}

/** The exit code of this run and why, as the terminal's last line says it. */
export function exitMeaning(report: AuditReport, failOnFindings: boolean): string {
  return findingsExitMeaning(findingsVerdict(report, report.summary.breakingCount), failOnFindings);
}
