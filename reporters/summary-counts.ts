/**
 * What a run's summary counts, computed once for every renderer (terminal, Markdown, HTML,
 * JUnit, matrix, diff): each verdict, and how many outcomes break an application written for a
 * direct connection (suites/outcome-breaks.ts), whatever their verdict. A profile that expects
 * a leak turns it into a `pass`; the application still breaks, so a summary of passes alone
 * reads "healthy" to someone deciding on a migration. The breaks are therefore counted next to
 * the verdicts, the passes that are expected breaks among them.
 */
import type { CheckResult, Verdict } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

/** The verdicts a summary counts, in the order every renderer lists them. */
export const COUNTED_VERDICTS: readonly Verdict[] = ['pass', 'fail', 'observed', 'inconclusive', 'skipped'];

export interface SummaryCounts {
  /** Checks of each verdict. */
  verdicts: Record<Verdict, number>;
  /** Of the checks of each verdict, how many gave an outcome that breaks an application. */
  breakingByVerdict: Record<Verdict, number>;
  /** Every outcome that breaks an application, whichever verdict it got. */
  breaking: number;
}

/** One piece of the summary's words, with the verdict it counts (for colour), or `breaks`. */
export interface CountPart {
  kind: Verdict | 'breaks';
  text: string;
}

/** Counts `checks` (a report's, a matrix column's, a diff's NEW side). */
export function summaryCounts(checks: ReadonlyArray<Pick<CheckResult, 'verdict' | 'outcome'>>): SummaryCounts {
  const zero = (): Record<Verdict, number> => ({ pass: 0, fail: 0, observed: 0, inconclusive: 0, skipped: 0 });
  const verdicts = zero();
  const breakingByVerdict = zero();
  let breaking = 0;
  for (const c of checks) {
    // A verdict this version does not know (a newer report's) is not counted under a known one.
    if (!Object.hasOwn(verdicts, c.verdict)) continue;
    verdicts[c.verdict]++;
    if (outcomeBreaks(c.outcome) === true) {
      breakingByVerdict[c.verdict]++;
      breaking++;
    }
  }
  return { verdicts, breakingByVerdict, breaking };
}

/**
 * The words of a summary, in parts: `14 outcomes break an application`, then every verdict,
 * a verdict with breaking outcomes saying how many: `22 pass (13 of them expected breaks)`,
 * `1 fail (1 breaking)`, `1 observed (1 breaking)` (an observation always says, 0 included).
 */
export function countParts(n: SummaryCounts): CountPart[] {
  const head: CountPart = {
    kind: 'breaks',
    text:
      n.breaking === 0
        ? 'no outcome breaks an application'
        : `${n.breaking} ${n.breaking === 1 ? 'outcome breaks' : 'outcomes break'} an application`,
  };
  const parts = COUNTED_VERDICTS.map((v): CountPart => {
    const count = n.verdicts[v];
    const b = n.breakingByVerdict[v];
    const note =
      v === 'pass' && b > 0
        ? ` (${b} of them expected breaks)`
        : v === 'fail' && b > 0
          ? ` (${b} breaking)`
          : v === 'observed' && count > 0
            ? ` (${b} breaking)`
            : '';
    return { kind: v, text: `${count} ${v}${note}` };
  });
  return [head, ...parts];
}

/**
 * {@link countParts} as one line: `14 outcomes break an application; 22 pass (...), 0 fail, ...`;
 * `paint` decorates each part (a colour, an HTML span) without rewording it.
 */
export function countsLine(n: SummaryCounts, paint: (p: CountPart) => string = (p) => p.text): string {
  const [head, ...verdicts] = countParts(n);
  return `${paint(head!)}; ${verdicts.map(paint).join(', ')}`;
}
