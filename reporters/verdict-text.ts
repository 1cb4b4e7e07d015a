/**
 * How a verdict reads to a person, the same words in every renderer (terminal, Markdown, HTML,
 * JUnit, matrix, diff). `pass` and `fail` only exist against an expectation; an `observed`
 * outcome (nothing expected) is shown with what it does to an application written for a direct
 * connection (suites/outcome-breaks.ts) and, when it breaks one, the check's severity, never as
 * a pass: a leak nobody asserted against is still a leak.
 */
import type { CheckResult, Report, Verdict } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

/** The three readings of an observation. */
export type ObservedReading = 'breaks' | 'fine' | 'unknown';

/** Whether the observed outcome of `c` breaks an application (unknown for unlisted labels). */
export function observedReading(c: Pick<CheckResult, 'outcome'>): ObservedReading {
  const breaks = outcomeBreaks(c.outcome);
  return breaks === true ? 'breaks' : breaks === false ? 'fine' : 'unknown';
}

/**
 * The verdict in the words every renderer prints: `pass`, `FAIL`, `observed: BREAKS (security)`,
 * `observed: no break`, `observed: effect unknown`, `inconclusive`, `skipped`. Renderers may
 * colour or decorate it, never reword it, so that a reader (and test/reporters/renderers-agree)
 * finds the same phrase for a check in each of them.
 */
export function verdictPhrase(c: Pick<CheckResult, 'verdict' | 'outcome' | 'severity'>): string {
  switch (c.verdict) {
    case 'fail':
      return 'FAIL';
    case 'observed': {
      const reading = observedReading(c);
      if (reading === 'breaks') return `observed: BREAKS (${c.severity})`;
      return reading === 'fine' ? 'observed: no break' : 'observed: effect unknown';
    }
    default:
      return c.verdict;
  }
}

/** The verdicts a summary counts, in the order every renderer lists them. */
export const COUNTED_VERDICTS: readonly Verdict[] = ['pass', 'fail', 'observed', 'inconclusive', 'skipped'];

/**
 * `22 pass, 1 fail, 3 observed (1 breaking), 0 inconclusive, 0 skipped`: every verdict counted,
 * observations with how many of them break an application. Counted from the checks (a report's
 * summary of schema 1 has no `observed`), so the words always match the rows beneath them.
 */
export function verdictCounts(checks: ReadonlyArray<Pick<CheckResult, 'verdict' | 'outcome'>>): string {
  return COUNTED_VERDICTS.map((v) => {
    const n = checks.filter((c) => c.verdict === v).length;
    if (v !== 'observed') return `${n} ${v}`;
    const breaking = checks.filter((c) => c.verdict === 'observed' && observedReading(c) === 'breaks').length;
    return `${n} observed${n > 0 ? ` (${breaking} breaking)` : ''}`;
  }).join(', ');
}

/** {@link verdictCounts} of a report, with `, interrupted` when it was. */
export function reportCounts(r: Pick<Report, 'checks' | 'summary'>): string {
  return `${verdictCounts(r.checks)}${r.summary.interrupted ? ', interrupted' : ''}`;
}
