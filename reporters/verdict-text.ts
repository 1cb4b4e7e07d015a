/**
 * How a verdict reads to a person, the same words in every renderer (terminal, Markdown, HTML,
 * JUnit, matrix, diff). `pass` and `fail` only exist against an expectation; an `observed`
 * outcome (nothing expected) is shown with what it does to an application written for a direct
 * connection (suites/outcome-breaks.ts) and, when it breaks one, the check's severity, never as
 * a pass: a leak nobody asserted against is still a leak.
 */
import type { CheckResult, Report } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { countsLine, summaryCounts } from './summary-counts.js';

export { COUNTED_VERDICTS } from './summary-counts.js';

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

/**
 * `14 outcomes break an application; 22 pass (13 of them expected breaks), 0 fail, 1 observed
 * (1 breaking), 0 inconclusive, 0 skipped`: every verdict counted, and the outcomes that break
 * an application, whatever their verdict (reporters/summary-counts.ts). Counted from the checks
 * (a report's summary of schema 1 has no `observed`), so the words always match the rows.
 */
export function verdictCounts(checks: ReadonlyArray<Pick<CheckResult, 'verdict' | 'outcome'>>): string {
  return countsLine(summaryCounts(checks));
}

/** {@link verdictCounts} of a report, with `, interrupted` when it was. */
export function reportCounts(r: Pick<Report, 'checks' | 'summary'>): string {
  return `${verdictCounts(r.checks)}${r.summary.interrupted ? ', interrupted' : ''}`;
}
