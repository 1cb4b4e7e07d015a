/**
 * What the engine itself learned while running a check, recorded as steps of the check's log
 * (session `engine`, one object of facts as the step's only row), so that the record is the
 * whole truth: the run error, an interruption, a target that did not answer again, the pool
 * recount after a destructive check, and why a check did not run. The final judgement
 * (judge-record.ts, judgeRun) reads them back; nothing that decides a result lives outside the
 * record. Other runs active during the check have their own note (steering/other-runs.ts).
 */
import type { Facts, StepRecord } from './step-record.js';
import { valueOf } from './step-reading.js';

/** Tags of the engine's fact steps. A check's own judge never sees them (judgeRun strips them). */
export const RUN_FACT_TAGS = {
  /** The check did not run: `{ verdict, reason, facts }`. The only step of such a record. */
  notRun: 'engine.not-run',
  /** The scenario threw: `{ message }`. */
  runError: 'engine.run-error',
  /** The run was cancelled while the check ran. */
  interrupted: 'engine.interrupted',
  /** After the check found the target unavailable, it did not answer again: `{ waitedMs }`. */
  targetGone: 'engine.target-gone',
  /** The pool counted again after a destructive check: `{ before, after, blocking }` or `{ failed }`. */
  recount: 'engine.pool-recount',
} as const;

/**
 * Tag of the note a check's record gets when another run was active during it (written by the
 * executor, asked by steering/other-runs.ts). Not a fact step: the other-runs veto reads it.
 */
export const OTHER_RUNS_TAG = 'engine.other-runs';

const FACT_TAGS: ReadonlySet<string> = new Set(Object.values(RUN_FACT_TAGS));

/** Whether `step` is one of the engine's fact steps (not the check's own). */
export function isRunFact(step: StepRecord): boolean {
  return step.session === 'engine' && FACT_TAGS.has(step.tag);
}

/** A fact step, numbered after `seq` steps and timed at `startMs` of the check. */
export function factStep(
  tag: string,
  what: string,
  facts: Record<string, unknown>,
  seq: number,
  startMs: number,
): StepRecord {
  return {
    seq,
    session: 'engine',
    tag,
    sql: what,
    pid: null,
    results: [[facts]],
    error: null,
    notices: [],
    notifications: [],
    startMs,
    durationMs: 0,
    timedOut: false,
    txStatus: null,
  };
}

/** The result of a check that did not run, as the facts of its one step. */
export interface NotRunFact {
  verdict: 'skipped' | 'inconclusive';
  reason: string;
  facts: Facts;
}

/** What the engine recorded about the run of a check, read back from its steps. */
export interface RunFacts {
  notRun: NotRunFact | null;
  runError: string | null;
  interrupted: boolean;
  targetGone: boolean;
  recount: { before: number; after: number; blocking: boolean; check: string } | { failed: string } | null;
}

/** The engine's facts in `steps` (see {@link RUN_FACT_TAGS}). */
export function runFactsOf(steps: readonly StepRecord[]): RunFacts {
  const step = (tag: string): StepRecord | undefined => steps.find((s) => s.session === 'engine' && s.tag === tag);
  const notRun = step(RUN_FACT_TAGS.notRun);
  const runError = valueOf(step(RUN_FACT_TAGS.runError), 'message');
  const recount = step(RUN_FACT_TAGS.recount);
  const failed = valueOf(recount, 'failed');
  return {
    notRun: notRun ? (notRun.results[0]![0] as unknown as NotRunFact) : null,
    runError: typeof runError === 'string' ? runError : null,
    interrupted: step(RUN_FACT_TAGS.interrupted) !== undefined,
    targetGone: step(RUN_FACT_TAGS.targetGone) !== undefined,
    recount: !recount
      ? null
      : typeof failed === 'string'
        ? { failed }
        : (recount.results[0]![0] as { before: number; after: number; blocking: boolean; check: string }),
  };
}
