/**
 * The exit-code rule of `pooltest audit` and `pooltest watch` for their findings, in one place
 * so the two cannot drift apart again (issue 40: with the same findings that typically break
 * and no pooler given, the audit exited 3 and the watch 0). The watch puts its own codes
 * around it (the command's failure first, unseen connections); docs/audit.md and docs/watch.md
 * state both.
 */
import type { BehaviourBasis, Breaks } from './audit-types.js';

/** Findings exist that typically break, but no pooler was given to confirm it. */
export const EXIT_UNCONFIRMED = 3;

/** What the rule needs to know of a report, whichever command wrote it. */
export interface FindingsVerdict {
  /** Where the pooler's behaviour came from: `typical` when no --report/--target was given. */
  basis: BehaviourBasis;
  /** Findings kept in the report. */
  findings: number;
  /** How many break on the pooler (the audit counts occurrences, the watch findings): > 0 or not. */
  breaking: number;
  /** Whether some finding breaks or has an unknown outcome, or more were only counted. */
  mayBreak: boolean;
  /** Findings whose outcome on the pooler is unknown (its check inconclusive or not run there). */
  unknown?: number;
}

/**
 * - 1: a finding breaks on the pooler given (`--report`, `--target`);
 * - 3: no pooler given, and findings typically break (`--fail-on-findings` makes that 1);
 * - 0: nothing breaks.
 * A report that says "BREAKS" never exits 0; a finding whose outcome is unknown counts as
 * breaking only where no pooler was asked.
 */
export function findingsExitCode(v: FindingsVerdict, failOnFindings: boolean): number {
  if (v.basis !== 'typical') return v.breaking > 0 ? 1 : 0;
  if (!v.mayBreak) return 0;
  return failOnFindings ? 1 : EXIT_UNCONFIRMED;
}

/** What either report says for the rule; `breaking` as that command counts it. */
export function findingsVerdict(
  report: {
    pooler: { basis: BehaviourBasis };
    findings: readonly { breaks: Breaks }[];
    overflow: Readonly<Record<string, number | undefined>>;
  },
  breaking: number,
): FindingsVerdict {
  return {
    basis: report.pooler.basis,
    findings: report.findings.length,
    breaking,
    mayBreak:
      report.findings.some((f) => f.breaks !== false) || Object.values(report.overflow).some((n) => (n ?? 0) > 0),
    unknown: report.findings.filter((f) => f.breaks === 'unknown').length,
  };
}

/** The exit code of this run and why, as the terminal's last line says it. */
export function findingsExitMeaning(v: FindingsVerdict, failOnFindings: boolean): string {
  const code = findingsExitCode(v, failOnFindings);
  if (v.basis !== 'typical') {
    if (code === 1) return 'exit 1: findings break on this pooler';
    // With every check inconclusive (another run on the pool, a pooler that stopped answering)
    // the exit stays 0, as the run command's does without --strict, but "nothing breaks" would
    // read as a clean bill of health that nothing measured.
    const unknown = v.unknown ?? 0;
    return unknown > 0
      ? `exit 0: nothing confirmed to break on this pooler, but ${unknown} finding(s) unknown there (the pooler's check was inconclusive or not run: see "on this pooler" above)`
      : 'exit 0: nothing breaks on this pooler';
  }
  if (code === 0)
    return v.findings === 0
      ? 'exit 0: no statement relies on session state'
      : 'exit 0: nothing typically breaks under transaction pooling';
  if (code === 1) return 'exit 1: findings typically break under transaction pooling (--fail-on-findings)';
  return `exit ${EXIT_UNCONFIRMED}: findings typically break under transaction pooling, not confirmed on a pooler (give --report or --target; --fail-on-findings exits 1)`;
}
