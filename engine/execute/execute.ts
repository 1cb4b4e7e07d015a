/**
 * Running one check: drive the scenario, always clean up, record what the engine learned about
 * the run (judging/run-facts.ts), judge the record (judging/judge-record.ts, judgeRun), compare
 * with the profile. The result's outcome, reason and facts are judgeRun of its steps: nothing
 * decided here stays out of the record. {@link executeCheck} runs the phases in order; they
 * live in phases.ts, and those a driver configuration shares in run-phases.ts. Needs no
 * Vitest; `checkTest` in vitest-check.ts wires it into a test.
 */
import { unmetRequirement, type CheckDefinition } from './check.js';
import { wedgeSkip } from './known-wedge.js';
import { factStep, RUN_FACT_TAGS, type NotRunFact } from '../record/run-facts.js';
import { blockingChange, describeChange } from '../discovery/pool-watch.js';
import { closeScenario, judged, noteRunFacts, runScenario, tidyUp, type ResultBase } from './phases.js';
import { goneBefore } from './run-phases.js';
import type { RunContext } from '../steering/scenario.js';
import type { CheckResult, Judgement, Profile } from '../types.js';
import { traceNow, traceSpan } from '../record/trace.js';

/** Annotation type of a wait in Vitest (vitest-check.ts); its message is `{ what, boundMs }` as JSON. */
export const WAIT_ANNOTATION = 'pooltest-wait';

/** What a running check tells its caller before it has a result. */
export interface CheckEvents {
  /** The check waits for `what` ("the target to answer again (...)") for up to `boundMs`. */
  onWait?(what: string, boundMs: number): void;
}

/** Runs one check end to end. Never throws: failures to run become inconclusive results. */
export async function executeCheck(
  def: CheckDefinition,
  ctx: RunContext,
  profile: Profile | null,
  signal?: AbortSignal,
  events: CheckEvents = {},
): Promise<CheckResult> {
  const started = performance.now();
  const tracedFrom = traceNow();
  const base = resultBase(def, profile);
  const refused = beforeRun(def, ctx, base);
  if (refused) return refused;
  const run = await runScenario(def, ctx, started, signal);
  const closed = await closeScenario(def, ctx, run);
  const answersAgain = await noteRunFacts(def, ctx, run, closed.others, events.onWait);
  // The wait for the target after an outage is this check's time; the visits after it are not.
  const durationMs = Math.round(performance.now() - started);
  const missed = await tidyUp(def, ctx, run.scn, closed, answersAgain);
  const result = judged(def, ctx, base, run.scn, { durationMs, missed });
  traceSpan('part', def.id, 'check', tracedFrom);
  return result;
}

/**
 * Before-run checks: the result of a check that is not run, or null when it can run. Skipped
 * when it cannot run against this target at all; inconclusive when the pool shrank below what
 * steering needs earlier in this run, or the target stopped answering (no bounds paid against
 * silence).
 */
function beforeRun(def: CheckDefinition, ctx: RunContext, base: ResultBase): CheckResult | null {
  const skip = skipReason(def, ctx);
  if (skip) return notRun(base, 'skipped', skip);
  const shrunk = blockingChange(ctx);
  if (shrunk)
    return notRun(
      base,
      'inconclusive',
      `not run: ${describeChange(shrunk)}, too few to steer this check; re-run once the pooler has its servers back`,
      { poolBefore: shrunk.before, poolAfter: shrunk.after },
    );
  const gone = goneBefore(ctx);
  return gone ? notRun(base, 'inconclusive', gone.reason, { targetGoneAfter: gone.after }) : null;
}

/** What every result of `def` says whatever happened: the check, and what the profile expects. */
export function resultBase(
  def: Pick<CheckDefinition, 'id' | 'title' | 'severity'>,
  profile: Profile | null,
): ResultBase {
  const expectation = profile?.expect[def.id] ?? null;
  return {
    id: def.id,
    title: def.title,
    severity: def.severity,
    expected: expectation?.outcome ?? null,
    expectedRef: expectation?.ref ?? null,
    expectedBasis: expectation?.basis ?? null,
  };
}

/**
 * Why a check cannot run against this target at all (it is then `skipped`), or null. Asked
 * before a check runs, and of the checks an interrupted run never started (runner/run.ts):
 * either way a check that was never going to run here is a skip, not a gap.
 */
export function skipReason(
  def: Pick<CheckDefinition, 'requires' | 'skipIf' | 'wedges'>,
  ctx: RunContext,
): string | null {
  return def.skipIf?.(ctx) ?? unmetRequirement(def, ctx) ?? wedgeSkip(def.wedges, ctx);
}

/**
 * The result of a check that did not run: skipped (a requirement), or inconclusive with why.
 * Its record is one fact step saying so (judging/run-facts.ts), so that it re-judges the same.
 */
export function notRun(
  base: ResultBase,
  verdict: 'skipped' | 'inconclusive',
  reason: string,
  facts: Judgement['facts'] = {},
): CheckResult {
  const fact: NotRunFact = { verdict, reason, facts };
  return {
    ...base,
    outcome: null,
    verdict,
    reason,
    facts,
    evidence: reason,
    advice: null,
    steps: [factStep(RUN_FACT_TAGS.notRun, '(the check did not run)', { ...fact }, 1, 0)],
    durationMs: 0,
    statements: 0,
    cleanup: { ok: true, detail: 'nothing to clean' },
  };
}
