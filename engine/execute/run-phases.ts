/**
 * The phases a check (engine/execute/execute.ts) and a driver configuration (drivers/run-drivers.ts)
 * share around their scenario: whether the target is still there before it, the question about
 * other pooltest runs before and during it, and the wait after a scenario that found the target
 * unavailable. One copy, so that both kinds of run decide, wait and say these the same way.
 */
import { anyAnswer, nothingAnswered, outageIn } from '../judging/outage.js';
import { OTHER_RUNS_TAG, otherRunsActive } from '../steering/other-runs.js';
import type { RunContext, Scenario } from '../steering/scenario.js';
import { untilAnswering } from '../steering/until-answering.js';
import { describeGone, markTargetGone, targetGone } from '../context/target-gone.js';
import type { StepRecord } from '../types.js';

/**
 * Target gone: why nothing more can run, when the target stopped answering after an earlier
 * scenario of this run (no bounds paid against silence); null while it answers.
 */
export function goneBefore(ctx: RunContext): { reason: string; after: string } | null {
  const gone = targetGone(ctx);
  return gone ? { reason: describeGone(gone), after: gone.check } : null;
}

/**
 * Other runs: whether another pooltest run is in the middle of a statement as the scenario
 * starts, and whether it used any backend while the scenario ran (a run that finished earlier
 * changes nothing after it ended). The first question is asked at once; the second once the
 * scenario says its evidence is in ({@link askDuring}, the latest such moment counts), or after
 * it when it never says.
 */
export class OtherRunsQuestion {
  private readonly before: Promise<number | null>;
  private during: Promise<number | null> | null = null;

  /** `startedAt`: the scenario's start on performance.now()'s clock. */
  constructor(
    private readonly ctx: RunContext,
    private readonly startedAt: number,
  ) {
    this.before = otherRunsActive(ctx, 0);
  }

  /**
   * Resolves when the scenario may begin. Over --direct the question uses no pooled backend, so
   * it goes alongside the scenario's first steps; through the target it comes first, since its
   * query takes a backend a moment.
   */
  async ready(): Promise<void> {
    if (!this.ctx.direct) await this.before;
  }

  /** Asks about other runs during the scenario now: its evidence is in. */
  askDuring(): void {
    this.during = otherRunsActive(this.ctx, this.window());
  }

  /**
   * How many other runs were active before or during the scenario, 0 when none (or nobody could
   * ask). `alongside` (the closing of the scenario's sessions, which the question touches none
   * of) runs meanwhile; `during` false skips the second question (an interrupted run).
   */
  async answer(alongside: Promise<unknown> = Promise.resolve(), during = true): Promise<number> {
    const before = await this.before;
    const [, after] = await Promise.all([
      alongside,
      during ? (this.during ?? otherRunsActive(this.ctx, this.window())) : null,
    ]);
    return Math.max(before ?? 0, after ?? 0);
  }

  /**
   * The window of the question during the scenario, on the server's clock: from the scenario's
   * start, plus the time the question takes to reach the server (a round trip, a wait behind the
   * question before on the kept session). Measured on the client it began too late, and a
   * statement of another run right after the start fell between the two questions.
   */
  private window(): number {
    return performance.now() - this.startedAt + 100 + 2 * this.ctx.discovery.rttMs;
  }
}

/** Notes `others` other runs in the record (where the vetoes find it), when there were any. */
export function noteOtherRuns(scn: Scenario, others: number, during: 'the check' | 'the driver run'): void {
  if (others > 0)
    scn.note('engine', OTHER_RUNS_TAG, `(${others} other pooltest run(s) active on this target during ${during})`, {
      facts: { other_runs: others },
    });
}

/**
 * Outage: whether the scenario found the target unavailable (a restarting pooler or server's
 * errors, or nothing answered). A scenario that threw before any statement was answered (its
 * first login timed out or was refused: no step records it) found it as surely as a record of
 * errors. An interrupted scenario found nothing: it was stopped.
 */
export function foundUnavailable(
  steps: readonly StepRecord[],
  run: { runError?: string | null; interrupted?: boolean } = {},
): boolean {
  return (
    run.interrupted !== true &&
    (outageIn(steps) !== undefined ||
      nothingAnswered(steps) !== undefined ||
      (run.runError != null && !anyAnswer(steps)))
  );
}

/**
 * After a scenario that found the target unavailable: waits (bounded, announced through
 * `onWait`) for it to answer again, so the next scenario does not fail fast while it is still
 * down; when it does not, marks it gone after `who`, so the next ones are not run against
 * silence. Returns whether it answers, and the bound waited.
 */
export async function untilBack(
  ctx: RunContext,
  who: string,
  onWait?: (what: string, boundMs: number) => void,
): Promise<{ answers: boolean; boundMs: number }> {
  const boundMs = ctx.bounds.connectMs + ctx.bounds.stepMs;
  onWait?.(`the target to answer again (${who} found it unavailable)`, boundMs);
  const answers = await untilAnswering(ctx, boundMs);
  if (!answers) markTargetGone(ctx, who, boundMs);
  return { answers, boundMs };
}
