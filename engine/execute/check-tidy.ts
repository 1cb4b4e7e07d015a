/**
 * The tidy-up after a check: the visits to every backend its steps reported (engine/sweep/sweep.ts),
 * or the check's own last steps where they did the visits' work (steering/inline-tidy.ts), and
 * the cleanup status a result carries. Phases of engine/execute/execute.ts (execute/phases.ts).
 */
import type { CheckDefinition } from './check.js';
import { isRunFact } from '../record/run-facts.js';
import { inlineCoverage } from '../steering/inline-tidy.js';
import { Scenario, type RunContext } from '../steering/scenario.js';
import { sparesAllowed } from '../steering/spare-session.js';
import { isCleanupTag } from '../record/tags.js';
import { tidy, type Findings } from '../sweep/sweep.js';
import { traced } from '../record/trace.js';
import type { CheckResult, StepRecord } from '../types.js';
import { leftoversOn } from '../sweep/visit-sql.js';

/** The visits right after a check, to every backend its steps reported (engine/sweep/sweep.ts, tidy). */
export function tidyAfter(def: CheckDefinition, ctx: RunContext, scn: Scenario): Promise<Findings> {
  if (scn.steps.every(isRunFact)) return Promise.resolve({ left: [], unreached: [] });
  return traced('part', def.id, 'tidy', () => tidy(ctx, [def.id], scn.pooledBackends(), withSpares(new Scenario(ctx))));
}

/**
 * Where the check's last steps may carry the tidy-up's statements: a check that can leave state,
 * under transaction or statement pooling (as for spares: sessions there hold no backend between
 * transactions) with transaction holders, on a counted pool.
 */
export function inlineTidyAllowed(def: CheckDefinition, ctx: RunContext): boolean {
  return (
    !def.leavesNoState &&
    sparesAllowed(ctx) &&
    ctx.discovery.holderStrategy === 'transaction' &&
    ctx.discovery.poolSize !== null
  );
}

/**
 * The tidy-up's findings from the check's own last steps, when they stand for its visits
 * (inlineCoverage); null when the visits must run. What any inline inspection found is counted
 * either way: the visits after it would find nothing it removed.
 */
export function inlineFindings(scn: Scenario, ctx: RunContext): Findings | null {
  const coverage = inlineCoverage(scn, ctx.discovery.poolSize);
  return coverage && 'on' in coverage ? { left: inlineLeftovers(scn), unreached: [], inlineOn: coverage.on } : null;
}

/** Why the check's last steps carried the tidy-up yet the visits ran (null: they did not carry it). */
export function inlineMissed(scn: Scenario, ctx: RunContext): string | null {
  const coverage = inlineCoverage(scn, ctx.discovery.poolSize);
  return coverage && 'missed' in coverage ? coverage.missed : null;
}

/** What the inline inspections found (and their cleanup removed), as the visits say it. */
export function inlineLeftovers(scn: Scenario): string[] {
  return scn.inlineVisits.flatMap((v) => {
    const counts = v.sets[1]?.[0];
    return counts && v.pid !== null ? leftoversOn(v.pid, (col) => Number(counts[col] ?? 0)) : [];
  });
}

/** The tidy-up's visitors log in ahead of need too (never interrupted: no signal). */
function withSpares(scn: Scenario): Scenario {
  scn.useSpares();
  return scn;
}

/**
 * Cleanup steps are tagged `*.cleanup`; any error in them is reported, and so is anything the
 * visits after the check found left behind (and removed).
 */
export function cleanupStatus(
  steps: readonly StepRecord[],
  missed: Findings,
  /** The check's leavesNoState, when it declares one: said instead of a count of none. */
  noState?: string,
): CheckResult['cleanup'] {
  const failed = steps.filter((s) => isCleanupTag(s.tag) && (s.error || s.timedOut));
  const left = [
    ...(missed.left.length > 0 ? [`left behind, removed right after the check: ${missed.left.join('; ')}`] : []),
    ...(missed.unreached.length > 0
      ? [
          `backend(s) ${missed.unreached.join(', ')} busy with other clients right after the check: left to the final sweep`,
        ]
      : []),
  ];
  const cleanups = steps.filter((s) => isCleanupTag(s.tag)).length;
  if (failed.length === 0 && left.length === 0)
    return {
      ok: true,
      detail:
        noState && cleanups === 0
          ? `nothing to clean, no tidy-up visit: ${noState}`
          : `${cleanups} cleanup step(s) succeeded${tidiedBy(missed)}`,
    };
  return {
    ok: false,
    detail:
      [...failed.map((s) => `${s.session} ${s.tag}: ${s.error?.message ?? 'timed out'}`), ...left].join('; ') +
      tidiedBy(missed),
  };
}

/** Where the check's own last steps did the tidy-up (steering/inline-tidy.ts), said so. */
function tidiedBy(missed: Findings): string {
  if (missed.inlineOn) return `; tidy-up done by the check's last steps on backends ${missed.inlineOn.join(', ')}`;
  return missed.inlineMissed ? `; tidy-up visited after the check: ${missed.inlineMissed}` : '';
}
