/**
 * From observation to verdict. The outcome is a fact about the pooler; the verdict only says
 * whether that fact matches what a profile promised. Without a promise there is nothing to
 * pass or fail: the verdict is `observed`, and readers judge the outcome by its severity.
 */
import type { Verdict } from './judgement.js';
import { sweepState, type SweepResult } from './sweep-result.js';

/**
 * - no outcome (the record did not support a conclusion): `inconclusive`, expectation or not;
 * - an outcome and no expectation: `observed` (nothing asserted, so neither pass nor fail);
 * - an outcome equal to the expectation: `pass`; different: `fail`.
 */
export function verdictFor(outcome: string | null, expected: string | null): Verdict {
  if (outcome === null) return 'inconclusive';
  if (expected === null) return 'observed';
  return outcome === expected ? 'pass' : 'fail';
}

const RANK: Record<Verdict, number> = { fail: 4, inconclusive: 3, pass: 2, observed: 1, skipped: 0 };

/** Combines verdicts: fail > inconclusive > pass > observed > skipped. */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  return verdicts.reduce<Verdict>((acc, v) => (RANK[v] > RANK[acc] ? v : acc), 'skipped');
}

/**
 * What `--strict` turns into a failure: a check that proved nothing. A skipped check declared
 * up front why it cannot run here (a missing right, a fixture-only check) and stays a skip.
 */
export function failsUnderStrict(verdict: Verdict): boolean {
  return verdict === 'inconclusive';
}

/**
 * Whether a sweep could not finish: its state is `unknown` (a report written before `state`
 * existed is read from `clean` by sweepState, and never says so). `null` when checks ran means
 * no sweep result at all, which proves nothing either.
 */
export function sweepUnfinished(sweep: SweepResult | null, checksRan: boolean): boolean {
  if (sweep === null) return checksRan;
  return sweepState(sweep) === 'unknown';
}

/**
 * The run's exit code as INTERPRETING.md section 6 defines it: 1 when a check failed its
 * expectation or the sweep found leftovers, and under `strict` also when a check was inconclusive, the sweep
 * could not finish, or every check was skipped; else 0. (2 and 130 are the CLI's: the run never got that far.)
 */
export function runExitCode(
  checks: ReadonlyArray<{ verdict: Verdict; steps: readonly unknown[] }>,
  sweep: SweepResult | null,
  strict: boolean,
): 0 | 1 {
  if (checks.some((c) => c.verdict === 'fail')) return 1;
  // Only leftovers found count; a sweep that could not look (unknown) counts under strict.
  if (sweep !== null && sweepState(sweep) === 'dirty') return 1;
  if (!strict) return 0;
  // Every check skipped (the login lacks what they need, --only picked fixture-only checks):
  // each skip says why, but the run as a whole proved nothing.
  if (checks.every((c) => c.verdict === 'skipped')) return 1;
  const unproven =
    checks.some((c) => failsUnderStrict(c.verdict)) ||
    sweepUnfinished(
      sweep,
      checks.some((c) => c.steps.length > 0),
    );
  return unproven ? 1 : 0;
}
