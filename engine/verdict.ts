/**
 * From observation to verdict. The outcome is a fact about the pooler; the verdict only says
 * whether that fact matches what a profile promised.
 */
import type { Verdict } from './types.js';

/**
 * - no outcome (the record did not support a conclusion): `inconclusive`, expectation or not;
 * - an outcome and no expectation: `pass` (observed, nothing asserted);
 * - an outcome equal to the expectation: `pass`; different: `fail`.
 */
export function verdictFor(outcome: string | null, expected: string | null): Verdict {
  if (outcome === null) return 'inconclusive';
  if (expected === null) return 'pass';
  return outcome === expected ? 'pass' : 'fail';
}

const RANK: Record<Verdict, number> = { fail: 3, inconclusive: 2, pass: 1, skipped: 0 };

/** Combines verdicts: fail > inconclusive > pass > skipped. */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  return verdicts.reduce<Verdict>((acc, v) => (RANK[v] > RANK[acc] ? v : acc), 'skipped');
}
