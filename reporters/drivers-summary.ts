/**
 * The drivers report's summary, in the checks' words (summary-counts.ts): how many results break
 * an application, next to the verdicts. `pooltest drivers` said only "89 results in 285.3 s":
 * with the built-in profile every documented failure is a `pass`, and without one nothing was
 * counted at all, so neither read said that 28 results break an application. A driver outcome
 * breaks as drivers/judge.ts's DRIVER_OUTCOMES says (failed, stalled, split; not retried).
 */
import { DRIVER_OUTCOMES } from '../drivers/judge.js';
import type { DriverResult, DriversReport } from '../drivers/run-drivers.js';
import type { Verdict } from '../engine/types.js';
import { countParts, type CountPart, type SummaryCounts } from './summary-counts.js';

/** Whether a driver outcome breaks an application (false for an unknown or absent one). */
export function driverOutcomeBreaks(outcome: string | null): boolean {
  return outcome !== null && Object.hasOwn(DRIVER_OUTCOMES, outcome) && DRIVER_OUTCOMES[outcome]!.breaks;
}

/** The summary counts of the drivers' results. */
export function driversCounts(results: readonly Pick<DriverResult, 'verdict' | 'outcome'>[]): SummaryCounts {
  const zero = (): Record<Verdict, number> => ({ pass: 0, fail: 0, observed: 0, inconclusive: 0, skipped: 0 });
  const verdicts = zero();
  const breakingByVerdict = zero();
  let breaking = 0;
  for (const r of results) {
    if (!Object.hasOwn(verdicts, r.verdict)) continue;
    verdicts[r.verdict]++;
    if (driverOutcomeBreaks(r.outcome)) {
      breakingByVerdict[r.verdict]++;
      breaking++;
    }
  }
  return { verdicts, breakingByVerdict, breaking };
}

/**
 * `89 results: 28 outcomes break an application; 79 pass (24 of them expected breaks), 0 fail,
 * 4 observed (4 breaking), 6 inconclusive; 1 driver skipped`. A skipped driver has no results,
 * so it is counted by driver, after the verdicts; `paint` decorates each part without rewording.
 */
export function driversSummaryLine(
  report: Pick<DriversReport, 'results' | 'skipped'>,
  paint: (p: CountPart) => string = (p) => p.text,
): string {
  const [head, ...verdicts] = countParts(driversCounts(report.results));
  const counted = verdicts.filter((p) => p.kind !== 'skipped');
  const n = report.results.length;
  const skipped = report.skipped.length;
  const drivers = skipped > 0 ? `; ${skipped} ${skipped === 1 ? 'driver' : 'drivers'} skipped` : '';
  return `${n} ${n === 1 ? 'result' : 'results'}: ${paint(head!)}; ${counted.map(paint).join(', ')}${drivers}`;
}
