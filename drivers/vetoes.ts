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
 * The target-gone, other-runs and outage phases are the engine's own (engine/execute/run-phases.ts),
 * the ones a check runs. This is the only file of drivers/ that calls into the engine's
 * judgement and run state: when those are reorganised, only this file changes.
 */
import { judgeRecord } from '../engine/judging/judge-record.js';
import { announceRun } from '../engine/steering/other-runs.js';
import type { RunContext } from '../engine/steering/scenario.js';
import type { Discovery, Judgement, StepRecord } from '../engine/types.js';
import { phaseSteps, type DriverScenarioId } from './judge.js';

// The phases a driver configuration shares with a check (engine/execute/run-phases.ts): the target gone
// before it, the question about other runs around it, the wait after it found an outage.
export {
  foundUnavailable,
  goneBefore,
  noteOtherRuns,
  OtherRunsQuestion,
  untilBack,
} from '../engine/execute/run-phases.js';

/** Holds the run's presence (other-runs.ts) until the returned function is called; best effort. */
export function announce(ctx: RunContext): Promise<() => Promise<void>> {
  return announceRun(ctx);
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

/** An inconclusive judgement for a scenario that was not run, with the reason. */
export function notRunJudgement(reason: string): Judgement {
  return { outcome: null, facts: {}, reason };
}
