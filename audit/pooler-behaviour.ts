/**
 * What the pooler does per check, from one of three places: a pooltest JSON report
 * (`--report`), a run of the relevant checks now (`--target`), or, with neither, what
 * transaction pooling typically does. Findings are joined with it check by check.
 */
import { readFile } from 'node:fs/promises';
import { PooltestError } from '../engine/record/errors.js';
import { describeTarget, redactUrl } from '../engine/target/target.js';
import type { Report } from '../engine/types.js';
import { AUDIT_CHECKS, TYPICAL_PROFILE } from './audit-checks.js';
import { findProfile } from '../profiles/index.js';
import { perParameterOf } from '../suites/labels.js';
import type { AuditCheckId, BehaviourBasis, Breaks, PoolerSummary } from './audit-types.js';
import { fileError } from './input-checks.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { upgradeReport } from '../reporters/report-compat.js';

/** Outcome per check id, and where it comes from. */
export interface PoolerBehaviour {
  basis: BehaviourBasis;
  name: string;
  outcomes: Map<string, string | null>;
  /**
   * For checks with an outcome per setting (`audit.perParameter`): check id, then the setting
   * (lower-case), then its outcome. A setting missing here is joined with the check's outcome.
   */
  parameters?: Map<string, Map<string, string | null>>;
}

/** What the join used: the check's outcome, or that of one setting the check judges on its own. */
export interface JoinedOutcome {
  outcome: string | null;
  breaks: Breaks;
  /** The setting whose own outcome was used (lower-case), or null for the check's. */
  parameter: string | null;
}

/**
 * The outcome of one check on this pooler and whether the app's statement breaks. With
 * `setting` (what a SET finding sets), a check that judges each setting on its own gives that
 * setting's outcome: PgBouncer replays TimeZone, so `SET timezone` is fine there even though
 * the check as a whole leaked (by application_name).
 */
export function joinCheck(behaviour: PoolerBehaviour, check: AuditCheckId, setting?: string | null): JoinedOutcome {
  const own = setting ? behaviour.parameters?.get(check)?.get(setting.toLowerCase()) : undefined;
  if (own !== undefined) return { outcome: own, breaks: outcomeBreaks(own), parameter: setting!.toLowerCase() };
  const outcome = behaviour.outcomes.get(check) ?? null;
  return { outcome, breaks: outcomeBreaks(outcome), parameter: null };
}

/**
 * The setting a finding's `what` names (`SET TimeZone`, `RESET timezone`,
 * `set_config('TimeZone', ..., false)`, either inside `DO block: ...`), lower-case, or null.
 * The `what` texts are the classifier's own (audit/set-statement.ts, audit/function-calls.ts).
 */
export function settingOfWhat(what: string): string | null {
  const m = /^(?:DO block: )?(?:(?:SET|RESET) ([A-Za-z_][\w.$]*)|set_config\('([^']+)')/.exec(what);
  const name = m?.[1] ?? m?.[2];
  return name === undefined ? null : name.toLowerCase();
}

/** Per-setting outcomes of the checks that judge settings one by one, read from each result's facts. */
function parametersFromChecks(checks: Pick<Report, 'checks'>['checks']): Map<string, Map<string, string | null>> {
  const out = new Map<string, Map<string, string | null>>();
  for (const check of checks) {
    const names = perParameterOf(check.id);
    if (names === null || check.verdict === 'skipped') continue;
    const own = new Map<string, string | null>();
    for (const [key, value] of Object.entries(check.facts ?? {})) {
      // `<Name>.outcome`, `Name` as the check spells it (TimeZone): matched without regard to case.
      const m = /^([^.]+)\.outcome$/.exec(key);
      const name = m?.[1]?.toLowerCase();
      if (name === undefined || !names.includes(name)) continue;
      // A setting the run did not observe (the server does not report it) says nothing.
      if (typeof value === 'string') own.set(name, value);
    }
    if (own.size > 0) out.set(check.id, own);
  }
  return out;
}

/** Per-setting outcomes the typical profile documents. */
function parametersFromProfile(): Map<string, Map<string, string | null>> {
  const out = new Map<string, Map<string, string | null>>();
  for (const [id, e] of Object.entries(findProfile(TYPICAL_PROFILE).expect))
    if (e.parameters !== undefined) out.set(id, new Map(Object.entries(e.parameters)));
  return out;
}

/** PgBouncer in transaction mode as documented: used when nothing better is given. */
export function typicalBehaviour(): PoolerBehaviour {
  return {
    basis: 'typical',
    name: 'typical transaction pooling (PgBouncer transaction mode, as documented)',
    outcomes: new Map(AUDIT_CHECKS.map((c) => [c.id, c.typicalOutcome])),
    parameters: parametersFromProfile(),
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
  return { basis, name: `${redactUrl(label)} (${where})`, outcomes, parameters: parametersFromChecks(report.checks) };
}

/** The summary the audit report carries. */
export function poolerSummary(behaviour: PoolerBehaviour, checks: Iterable<AuditCheckId>): PoolerSummary {
  const outcomes: Record<string, string | null> = {};
  const parameters: Record<string, Record<string, string | null>> = {};
  for (const id of checks) {
    outcomes[id] = behaviour.outcomes.get(id) ?? null;
    const own = behaviour.parameters?.get(id);
    if (own !== undefined) parameters[id] = Object.fromEntries(own);
  }
  return { basis: behaviour.basis, name: behaviour.name, outcomes, parameters };
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
