/**
 * What changes for an application between two runs: the same catalogue against two targets
 * (direct and pooled, one pooler and another, two versions of one). Each check is classed by
 * its observed outcomes, not by verdicts, because the question is "what will my app see",
 * not "did each pooler match its profile". Whether an outcome breaks an application comes from
 * the one shared table in outcome-breaks.ts.
 */
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { sweepText } from './sweep-text.js';
import type { CheckResult, PublicTarget, Report, Severity, Verdict } from '../engine/types.js';

/** Bumped whenever a field of {@link ReportDiff} changes meaning or disappears. */
export const DIFF_SCHEMA_VERSION = 1;

/**
 * - `breaks`: NEW shows an outcome that breaks applications and OLD did not show it;
 * - `fixed`: OLD's outcome broke applications, NEW's does not;
 * - `same`: the same outcome on both;
 * - `changed`: a different outcome, and neither breaks (e.g. `session` to `tracked`);
 * - `unknown`: a side (or both) has no outcome (inconclusive, skipped, not run) or a label the table does not know.
 */
export type ChangeKind = 'breaks' | 'fixed' | 'same' | 'changed' | 'unknown';

/** One check, side by side. */
export interface DiffEntry {
  id: string;
  title: string;
  severity: Severity;
  old: string | null;
  new: string | null;
  /** null when the check was not in that report. */
  oldVerdict: Verdict | null;
  newVerdict: Verdict | null;
  change: ChangeKind;
  /** Why the change is classed so, in one line. */
  why: string;
  /** For a break: what to do about it (NEW's advice for its outcome). */
  advice: string | null;
}

/** Which run a side of the diff is. */
export interface DiffSide {
  runId: string;
  startedAt: string;
  toolVersion: string;
  target: PublicTarget;
  mode: Report['discovery']['mode'];
  pooler: string | null;
  serverVersion: string;
  profile: string | null;
  /**
   * The run's own sweep sentence without `Sweep: ` (`clean (...)`, `DIRTY - ...`, `unknown -
   * could not look for leftovers: ...`), `not run` without one; absent in diffs written before it.
   */
  sweep?: string;
}

/** The comparison of two reports; `exitCode` is 1 when anything breaks. */
export interface ReportDiff {
  schemaVersion: number;
  old: DiffSide;
  new: DiffSide;
  entries: DiffEntry[];
  summary: Record<ChangeKind, number> & { exitCode: 0 | 1 };
}

/** Compares OLD (the baseline the application works against today) with NEW. */
export function diffReports(oldReport: Report, newReport: Report): ReportDiff {
  const oldById = new Map(oldReport.checks.map((c) => [c.id, c]));
  const newById = new Map(newReport.checks.map((c) => [c.id, c]));
  const ids = [...newById.keys(), ...[...oldById.keys()].filter((id) => !newById.has(id))];
  const entries = ids.map((id) => compareCheck(oldById.get(id), newById.get(id)));
  const count = (k: ChangeKind): number => entries.filter((e) => e.change === k).length;
  const breaks = count('breaks');
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    old: side(oldReport),
    new: side(newReport),
    entries,
    summary: {
      breaks,
      fixed: count('fixed'),
      same: count('same'),
      changed: count('changed'),
      unknown: count('unknown'),
      exitCode: breaks > 0 ? 1 : 0,
    },
  };
}

function compareCheck(o: CheckResult | undefined, n: CheckResult | undefined): DiffEntry {
  const any = (n ?? o)!;
  const base = {
    id: any.id,
    title: any.title,
    severity: any.severity,
    old: o?.outcome ?? null,
    new: n?.outcome ?? null,
    oldVerdict: o?.verdict ?? null,
    newVerdict: n?.verdict ?? null,
    advice: null,
  };
  const { change, why } = classify(o, n);
  return { ...base, change, why, advice: change === 'breaks' ? (n?.advice ?? null) : null };
}

function classify(o: CheckResult | undefined, n: CheckResult | undefined): { change: ChangeKind; why: string } {
  if (!o || !n) return { change: 'unknown', why: `not run in ${o ? 'NEW' : 'OLD'}` };
  if (o.outcome === null && n.outcome === null) return { change: 'unknown', why: neitherHasOutcome(o, n) };
  if (o.outcome === null || n.outcome === null) {
    const which = o.outcome === null ? o : n;
    return {
      change: 'unknown',
      why: `${which === o ? 'OLD' : 'NEW'} has no outcome (${which.verdict}): ${which.reason}`,
    };
  }
  if (o.outcome === n.outcome) return { change: 'same', why: `${n.outcome} on both` };
  const oldBreaks = outcomeBreaks(o.outcome);
  const newBreaks = outcomeBreaks(n.outcome);
  if (newBreaks === true) {
    return {
      change: 'breaks',
      why:
        oldBreaks === true
          ? `a different breaking behaviour: ${o.outcome} becomes ${n.outcome}`
          : `${o.outcome} becomes ${n.outcome}, which breaks applications`,
    };
  }
  if (newBreaks === 'unknown')
    return { change: 'unknown', why: `pooltest does not know whether "${n.outcome}" breaks applications` };
  if (oldBreaks === true)
    return { change: 'fixed', why: `${o.outcome} becomes ${n.outcome}, which does not break applications` };
  return { change: 'changed', why: `${o.outcome} becomes ${n.outcome}; neither breaks applications` };
}

/**
 * Neither run has an outcome: naming only OLD's would read as if NEW had one. Both skipped (or
 * both inconclusive) is said once, with the reason once when the two runs give the same one.
 */
function neitherHasOutcome(o: CheckResult, n: CheckResult): string {
  if (o.verdict === n.verdict) {
    const why = o.reason === n.reason ? o.reason : `OLD: ${o.reason}; NEW: ${n.reason}`;
    return `${o.verdict} in both runs: ${why}`;
  }
  return `no outcome in either run: OLD ${o.verdict} (${o.reason}), NEW ${n.verdict} (${n.reason})`;
}

function side(r: Report): DiffSide {
  const p = r.discovery.pooler;
  return {
    runId: r.runId,
    startedAt: r.startedAt,
    toolVersion: r.tool.version,
    target: r.target,
    mode: r.discovery.mode,
    pooler: p ? `${p.name} ${p.version ?? ''}`.trim() : null,
    serverVersion: r.discovery.serverVersion,
    profile: r.profile?.name ?? null,
    sweep: r.sweep ? sweepText(r.sweep).text.replace(/^Sweep: /, '') : 'not run',
  };
}
