/**
 * Sweep results for tests that need one without running a sweep: whole values of the report's
 * type, shaped as engine/sweep/sweep.ts writes them (`clean` is `state === 'clean'`), so a test can
 * change the one field it is about and cannot lean on a field the type does not allow.
 */
import type { SweepResult, SweepState } from '../../engine/types.js';

/** What a sweep found and where it looked; every field has an empty default. */
export type SweepFindings = Partial<Pick<SweepResult, 'reason' | 'backendsVisited' | 'leftovers' | 'via' | 'restored'>>;

/** A sweep that ended in `state`, through the target, having visited nothing unless told. */
export function sweepResult(state: SweepState, found: SweepFindings = {}): SweepResult {
  return { clean: state === 'clean', state, backendsVisited: [], leftovers: [], via: ['target'], ...found };
}

/**
 * A sweep as a report written before `state` existed holds it: `clean` alone says whether it
 * found anything (readers take it through `sweepState`).
 */
export function sweepBeforeState(clean: boolean, found: SweepFindings = {}): SweepResult {
  return { clean, backendsVisited: [], leftovers: [], via: ['target'], ...found };
}
