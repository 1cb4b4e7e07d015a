/**
 * The figure behind a measured outcome. A label such as capacity/connect-churn's `same` or
 * `faster` is a reading of a ratio with its uncertainty; the matrix and the reports show the
 * ratio and its interval next to the label, so a reader sees how close the call was instead of
 * a label that seems to flip between runs.
 */
import type { CheckResult } from '../engine/types.js';

/**
 * `1.12x [0.95-1.31]` when the check's facts hold a `speedup` (and its 95% interval
 * `speedupLow`, `speedupHigh`), else null.
 */
export function measureText(c: Partial<Pick<CheckResult, 'facts'>>): string | null {
  // A report read from a file may have no facts for a check (an older or another tool's).
  const { speedup, speedupLow, speedupHigh } = c.facts ?? {};
  if (typeof speedup !== 'number') return null;
  const interval =
    typeof speedupLow === 'number' && typeof speedupHigh === 'number' ? ` [${speedupLow}-${speedupHigh}]` : '';
  return `${speedup}x${interval}`;
}
