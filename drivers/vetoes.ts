/**
 * The engine's vetoes, applied to driver judgements: a driver result is `works`, `retried` or
 * `failed` only where a check's result could be a label too. None stands when
 * - the target stopped answering earlier in the run (target-gone.ts): the configuration is not
 *   run, every scenario is inconclusive with the reason;
 * - another pooltest run was active on the target during the configuration (other-runs.ts);
 * - the target was unavailable during the phase (outage.ts: a restarting server's errors are
 *   not the driver's failure), or nothing of it answered;
 * - a statement of the phase was refused at capacity (capacity-refusal.ts);
 * - the target broke the wire protocol (protocol.ts).
 * The landing a driver's label rests on is proven by the judge itself (judge.ts, with the
 * engine's readLanding): `moved` rests on A's own pids (first use on b1, next use elsewhere),
 * not on the observer reaching b1, so the check-style `restsOn` veto is not applied to it.
 *
 * The run also announces itself (other-runs.ts's presence lock), so other runs' vetoes see it.
 *
 * This is the only file of drivers/ that calls into the engine's judgement and run state: when
 * those are reorganised, only this file changes.
 */
import { judgeRecord } from '../engine/judging/judge-record.js';
import { announceRun, OTHER_RUNS_TAG, otherRunsActive } from '../engine/steering/other-runs.js';
import type { RunContext, Scenario } from '../engine/steering/scenario.js';
import { untilAnswering } from '../engine/steering/until-answering.js';
import { describeGone, markTargetGone, targetGone } from '../engine/context/target-gone.js';
import { nothingAnswered, outageIn } from '../engine/judging/outage.js';
import type { Discovery, Judgement, StepRecord } from '../engine/types.js';
import { phaseSteps, type DriverScenarioId } from './judge.js';

/** Holds the run's presence (other-runs.ts) until the returned function is called; best effort. */
export function announce(ctx: RunContext): Promise<() => Promise<void>> {
  return announceRun(ctx);
}

/** Why nothing of this run can be concluded any more (the target went silent), or null. */
export function goneBefore(ctx: RunContext): string | null {
  const gone = targetGone(ctx);
  return gone ? describeGone(gone) : null;
}

/**
 * Asks whether other pooltest runs are active (within the last `windowMs`) and, when some are,
 * notes it in the record, where {@link vetoed} finds it. Never throws.
 */
export async function noteOtherRuns(ctx: RunContext, scn: Scenario, windowMs: number): Promise<void> {
  const others = await otherRunsActive(ctx, windowMs).catch(() => null);
  if (others !== null && others > 0)
    scn.note(
      'engine',
      OTHER_RUNS_TAG,
      `(${others} other pooltest run(s) active on this target during the driver run)`,
      {
        facts: { other_runs: others },
      },
    );
}

/** The judge's judgement after the engine's vetoes (pure: tests apply it to recorded logs). */
export function vetoed(
  judgement: Judgement,
  steps: readonly StepRecord[],
  discovery: Discovery,
  scenario: DriverScenarioId,
): Judgement {
  return judgeRecord({ judge: () => judgement }, phaseSteps(steps, scenario), discovery);
}

/**
 * After a configuration whose record shows the target unavailable: waits (bounded) for it to
 * answer again, and when it does not, marks it gone so the next configurations are not run
 * against silence. Returns whether it answers.
 */
export async function afterOutage(ctx: RunContext, steps: readonly StepRecord[], what: string): Promise<boolean> {
  if (outageIn(steps) === undefined && nothingAnswered(steps) === undefined) return true;
  const boundMs = ctx.bounds.connectMs + ctx.bounds.stepMs;
  const back = await untilAnswering(ctx, boundMs);
  if (!back) markTargetGone(ctx, what, boundMs);
  return back;
}

/** An inconclusive judgement for a scenario that was not run, with the reason. */
export function notRunJudgement(reason: string): Judgement {
  return { outcome: null, facts: {}, reason };
}
