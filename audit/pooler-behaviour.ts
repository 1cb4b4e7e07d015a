/**
 * What the pooler does per check, from one of three places: a pooltest JSON report
 * (`--report`), a run of the relevant checks now (`--target`), or, with neither, what
 * transaction pooling typically does. Findings are joined with it check by check.
 */
import { readFile } from 'node:fs/promises';
import { PooltestError } from '../engine/errors.js';
import { describeTarget, redactUrl } from '../engine/target.js';
import type { Report } from '../engine/types.js';
import { AUDIT_CHECKS } from './audit-checks.js';
import type { AuditCheckId, BehaviourBasis, Breaks, PoolerSummary } from './audit-types.js';
import { fileError } from './input-checks.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { upgradeReport } from '../reporters/report-compat.js';

/** Outcome per check id, and where it comes from. */
export interface PoolerBehaviour {
  basis: BehaviourBasis;
  name: string;
  outcomes: Map<string, string | null>;
}

/** The outcome of one check on this pooler and whether the app's statement breaks. */
export function joinCheck(behaviour: PoolerBehaviour, check: AuditCheckId): { outcome: string | null; breaks: Breaks } {
  const outcome = behaviour.outcomes.get(check) ?? null;
  return { outcome, breaks: outcomeBreaks(outcome) };
}

/** PgBouncer in transaction mode as documented: used when nothing better is given. */
export function typicalBehaviour(): PoolerBehaviour {
  return {
    basis: 'typical',
    name: 'typical transaction pooling (PgBouncer transaction mode, as documented)',
    outcomes: new Map(AUDIT_CHECKS.map((c) => [c.id, c.typicalOutcome])),
  };
}

/** Reads a pooltest JSON report (`pooltest --json report.json`). */
export async function behaviourFromReportFile(path: string): Promise<PoolerBehaviour> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw fileError(path, error, '--report');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new PooltestError(
      'AUDIT_INPUT',
      `--report ${path}: not JSON (${error instanceof Error ? error.message : String(error)})`,
      { file: path },
    );
  }
  return behaviourFromReport(checkedReport(data, `--report ${path}`), 'report', path);
}

/** Turns a report (read from a file or just produced by a run) into outcomes per check. */
export function behaviourFromReport(
  report: Pick<Report, 'checks' | 'target'>,
  basis: BehaviourBasis,
  label: string,
): PoolerBehaviour {
  const outcomes = new Map<string, string | null>();
  for (const check of report.checks) outcomes.set(check.id, check.verdict === 'skipped' ? null : check.outcome);
  const t = report.target;
  const where = t ? describeTarget(t) : 'unknown target';
  return { basis, name: `${redactUrl(label)} (${where})`, outcomes };
}

/** The summary the audit report carries. */
export function poolerSummary(behaviour: PoolerBehaviour, checks: Iterable<AuditCheckId>): PoolerSummary {
  const outcomes: Record<string, string | null> = {};
  for (const id of checks) outcomes[id] = behaviour.outcomes.get(id) ?? null;
  return { basis: behaviour.basis, name: behaviour.name, outcomes };
}

/** Checks the parts of a report the audit relies on; anything else may differ. */
export function checkedReport(data: unknown, label: string): Pick<Report, 'checks' | 'target'> {
  const report = data as { checks?: unknown; target?: unknown } | null;
  if (report === null || typeof report !== 'object' || !Array.isArray(report.checks)) {
    throw new PooltestError('AUDIT_INPUT', `${label}: not a pooltest report (no "checks" array)`);
  }
  for (const [i, check] of report.checks.entries()) {
    const c = check as { id?: unknown; outcome?: unknown } | null;
    if (c === null || typeof c.id !== 'string' || !(typeof c.outcome === 'string' || c.outcome === null)) {
      throw new PooltestError('AUDIT_INPUT', `${label}: checks[${i}] has no string "id" and string-or-null "outcome"`);
    }
  }
  // A schema 1 report's observations were `pass`; read it as schema 2 like every reader does.
  return upgradeReport(report as Pick<Report, 'checks' | 'target'> & { schemaVersion?: unknown });
}
