/**
 * How a verdict reads to a person. `pass` and `fail` only exist against an expectation; an
 * `observed` outcome (nothing expected) is shown with what it does to an application written for
 * a direct connection (suites/outcome-breaks.ts) and the check's severity, never as a pass: a
 * leak nobody asserted against is still a leak.
 */
import type { CheckResult } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

/** The three readings of an observation. */
export type ObservedReading = 'breaks' | 'fine' | 'unknown';

/** Whether the observed outcome of `c` breaks an application (unknown for unlisted labels). */
export function observedReading(c: Pick<CheckResult, 'outcome'>): ObservedReading {
  const breaks = outcomeBreaks(c.outcome);
  return breaks === true ? 'breaks' : breaks === false ? 'fine' : 'unknown';
}

/** One phrase for an observation: `leaked: breaks an application (security)`. */
export function observedPhrase(c: Pick<CheckResult, 'outcome' | 'severity'>): string {
  const reading = observedReading(c);
  const effect =
    reading === 'breaks'
      ? `breaks an application (${c.severity})`
      : reading === 'fine'
        ? 'keeps direct-connection behaviour'
        : 'effect on applications unknown';
  return `${c.outcome ?? 'no outcome'}: ${effect}`;
}
