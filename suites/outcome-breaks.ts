/**
 * Which observed outcome labels break an application that was written for a direct connection.
 * One table for the whole product, derived from the checks' own `outcomes` (each label declares
 * `breaks`): `pooltest diff` and `--compare` use it to call a change a break or a fix, and the
 * audit and watch to say whether a statement would break. A label means the same in every check
 * that reports it (a test holds them to one `breaks` value), so a label alone is enough to ask.
 * A label no check declares is `unknown`, never guessed.
 */
import type { OutcomeInfo } from '../engine/check.js';
import { CATALOGUE } from './catalogue.js';

/** `true`: the application sees a difference; `false`: it keeps its meaning; or unknown. */
export type OutcomeBreaks = boolean | 'unknown';

/** Every label of the catalogue with whether it breaks (the first check declaring it decides). */
export const OUTCOME_BREAKS: Readonly<Record<string, boolean>> = (() => {
  const table: Record<string, boolean> = {};
  for (const check of CATALOGUE) {
    for (const [label, info] of Object.entries(check.outcomes as Record<string, OutcomeInfo>)) {
      if (!Object.hasOwn(table, label)) table[label] = info.breaks;
    }
  }
  return table;
})();

/** Maps an outcome label (null when the check was inconclusive or skipped) to breaks, fine or unknown. */
export function outcomeBreaks(outcome: string | null): OutcomeBreaks {
  if (outcome === null) return 'unknown';
  return Object.hasOwn(OUTCOME_BREAKS, outcome) ? OUTCOME_BREAKS[outcome]! : 'unknown';
}

/** Labels that two checks declare with different `breaks` values (must be none). */
export function inconsistentBreaks(checks: readonly { id: string; outcomes: object }[] = CATALOGUE): string[] {
  const seen = new Map<string, { breaks: boolean; id: string }>();
  const bad: string[] = [];
  for (const check of checks) {
    for (const [label, info] of Object.entries(check.outcomes as Record<string, OutcomeInfo>)) {
      const first = seen.get(label);
      if (!first) seen.set(label, { breaks: info.breaks, id: check.id });
      else if (first.breaks !== info.breaks)
        bad.push(`${label}: breaks=${first.breaks} in ${first.id}, ${info.breaks} in ${check.id}`);
    }
  }
  return bad;
}
