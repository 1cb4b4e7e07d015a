/**
 * Running one check: drive the scenario, always clean up, record what the engine learned about
 * the run (judging/run-facts.ts), judge the record (judging/judge-record.ts, judgeRun), compare
 * with the profile. The result's outcome, reason and facts are judgeRun of its steps: nothing
 * decided here stays out of the record. Needs no Vitest; `checkTest` in vitest-check.ts wires
 * it into a test.
 */
import { adviceFor, unmetRequirement, type CheckDefinition } from './check.js';
import { isPooltestError } from './errors.js';
import { judgeRun } from './judging/judge-record.js';
import { anyAnswer, nothingAnswered, outageIn } from './judging/outage.js';
import { factStep, isRunFact, RUN_FACT_TAGS, type NotRunFact } from './judging/run-facts.js';
import { blockingChange, describeChange, recountAfter, type Recount } from './pool-watch.js';
import { OTHER_RUNS_TAG, otherRunsActive } from './steering/other-runs.js';
import { Scenario, type RunContext } from './steering/scenario.js';
import { sparesAllowed } from './steering/spare-session.js';
import { isCleanupTag } from './steering/tags.js';
import { untilAnswering } from './steering/until-answering.js';
import { tidy, visitStatements, type Findings } from './sweep.js';
import { inlineCoverage, inlineTidyStatements } from './steering/inline-tidy.js';
import { leftoversOn } from './visit-sql.js';
import { describeGone, markTargetGone, targetGone } from './target-gone.js';
import type { Profile } from './profile.js';
import type { CheckResult, Judgement, StepRecord } from './types.js';
import { verdictFor } from './verdict.js';
import { traced, traceNow, traceSpan } from './trace.js';

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
  const skip = skipReason(def, ctx);
  if (skip) return notRun(base, 'skipped', skip);
  // A pool that shrank below what steering needs, earlier in this run: nothing to steer with.
  const shrunk = blockingChange(ctx);
  if (shrunk)
    return notRun(
      base,
      'inconclusive',
      `not run: ${describeChange(shrunk)}, too few to steer this check; re-run once the pooler has its servers back`,
      { poolBefore: shrunk.before, poolAfter: shrunk.after },
    );
  // A target that stopped answering after an earlier check: no bounds paid against silence.
  const silent = targetGone(ctx);
  if (silent) return notRun(base, 'inconclusive', describeGone(silent), { targetGoneAfter: silent.check });
  const scn = new Scenario(ctx, signal);
  // Logins ahead of need (steering/spare-session.ts): made while the previous check ended,
  // taken from its first login on (a crowd check ends them before it logs in anyone).
  scn.useSparesFromFirstOpen();
  let runError: string | null = null;
  // Before: another run in the middle of a statement. During: any backend it
  // used since this check began (a run that finished earlier changes nothing after it ended).
  // Over --direct the question uses no pooled backend, so it goes alongside the scenario's
  // first steps; through the target it comes first, since its query takes a backend a moment.
  const askedBefore = otherRunsActive(ctx, 0);
  // The window of the question about other runs during the check, on the server's clock: from
  // the check's start, plus the time the question takes to reach the server (a round trip, a
  // wait behind the question before on the kept session) - measured on the client it began too
  // late, and a statement of another run right after the start fell between the two questions.
  const sinceStart = (): number => performance.now() - started + 100 + 2 * ctx.discovery.rttMs;
  if (!ctx.direct) await askedBefore;
  // Where the check's last steps can do the tidy-up's work (steering/inline-tidy.ts).
  if (inlineTidyAllowed(def, ctx)) scn.inlineTidy = inlineTidyStatements(visitStatements(ctx.runId, [def.id]));
  // Other runs during the check: asked once its evidence is in, alongside its cleanup (the
  // latest such moment counts), or after it when the scenario never says.
  let askedDuring: Promise<number | null> | null = null;
  scn.whenEvidenceComplete(() => {
    askedDuring = otherRunsActive(ctx, sinceStart());
  });
  try {
    await traced('part', def.id, 'scenario', () => def.scenario(scn));
  } catch (err) {
    runError = isPooltestError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  }
  const othersBefore = await askedBefore;
  // A scenario that failed before any statement was answered (its first login timed out or was
  // refused: no step records it) found the target unavailable as surely as a record of errors.
  const unavailable =
    !scn.interrupted &&
    (outageIn(scn.steps) !== undefined ||
      nothingAnswered(scn.steps) !== undefined ||
      (runError !== null && !anyAnswer(scn.steps)));
  // Asking about other runs touches none of the check's sessions: it goes while they close.
  // Over --direct it touches no pooled backend either, so the tidy-up's visits of the pool go
  // alongside it (after an outage they wait for the target to answer again, below).
  const closed = traced('part', def.id, 'close', () => scn.closeAll());
  // The check's last steps did the tidy-up's work on every backend it needs (inline-tidy.ts).
  const inline = !scn.interrupted && !unavailable ? inlineFindings(scn, ctx) : null;
  // The next check's logins ahead of need start as this one ends: by the tidy-up's visitors
  // (withSpares), or here for a check that has none (at a distance a login is three round trips
  // the next check would begin with). Not after a crowd, which ended them to count only its own
  // clients: the capacity checks run one after another, and spares between two crowds would
  // only be closed again.
  if ((def.leavesNoState || inline) && !scn.countsOwnClientsOnly && !scn.interrupted && !unavailable)
    new Scenario(ctx).useSpares();
  // Only where a closing client holds nothing a visitor needs (as for spares): a pooler with a
  // client limit may not yet have freed the check's slots for the visitors. There the visits
  // start while the check's clients say goodbye (at a distance a close is half a round trip;
  // a visitor that reaches a backend a closing client still has just queues for it).
  const tidied = inline
    ? Promise.resolve(inline)
    : ctx.direct && sparesAllowed(ctx) && !scn.interrupted && !unavailable && !def.leavesNoState
      ? tidyAfter(def, ctx, scn)
      : null;
  const [, othersDuring] = await Promise.all([
    closed,
    scn.interrupted ? null : (askedDuring ?? otherRunsActive(ctx, sinceStart())),
  ]);
  const others = Math.max(othersBefore ?? 0, othersDuring ?? 0);
  if (others > 0)
    scn.note('engine', OTHER_RUNS_TAG, `(${others} other pooltest run(s) active on this target during the check)`, {
      facts: { other_runs: others },
    });
  if (runError) scn.note('engine', RUN_FACT_TAGS.runError, '(the scenario failed)', { facts: { message: runError } });
  if (scn.interrupted) scn.note('engine', RUN_FACT_TAGS.interrupted, '(the run was cancelled during the check)');
  // After an outage (a restarting pooler or server), the next check starts once the target
  // answers again (bounded), rather than failing fast while it is still down. The wait is
  // announced (progress line) and counted in this check's duration: it is this check's time.
  let answersAgain = true;
  if (unavailable) {
    const boundMs = ctx.bounds.connectMs + ctx.bounds.stepMs;
    events.onWait?.(`the target to answer again (${def.id} found it unavailable)`, boundMs);
    answersAgain = await untilAnswering(ctx, boundMs);
    if (!answersAgain) {
      markTargetGone(ctx, def.id, boundMs);
      scn.note('engine', RUN_FACT_TAGS.targetGone, '(the target did not answer again after the check)', {
        facts: { waitedMs: boundMs },
      });
    }
  }
  const durationMs = Math.round(performance.now() - started);
  // Never interrupted: an interrupted check is exactly the one most likely to leave state.
  // Against a target that no longer answers, what the check touched is left to the sweep.
  // A check that cannot leave state (leavesNoState) is not visited: nothing of it can be found.
  const visited = def.leavesNoState
    ? { left: [], unreached: [] }
    : answersAgain
      ? await (tidied ?? tidyAfter(def, ctx, scn))
      : { left: [], unreached: scn.pooledBackends() };
  // Visits that ran after inline inspections would not find what those removed: said here.
  const missed = inline ? visited : { ...visited, left: [...inlineLeftovers(scn), ...visited.left] };
  // A check that can damage the pool: count it again; a smaller one is this check's finding.
  if (def.flags?.includes('destructive') && !scn.interrupted && answersAgain)
    noteRecount(scn, await traced('part', def.id, 'recount', () => recountAfter(ctx, def.id)));
  const judgement = judgeRun(def, scn.steps, ctx.discovery);
  traceSpan('part', def.id, 'check', tracedFrom);
  return {
    ...base,
    outcome: judgement.outcome,
    verdict: verdictOf(judgement, base.expected),
    reason: judgement.reason,
    facts: judgement.facts,
    evidence:
      def.evidence?.(
        judgement,
        scn.steps.filter((s) => !isRunFact(s)),
      ) ?? judgement.reason,
    advice: adviceFor(def, judgement.outcome),
    steps: scn.steps,
    durationMs,
    statements: scn.recorder.statements,
    cleanup: cleanupStatus(scn.steps, missed, def.leavesNoState),
  };
}

/** The recount's result as a fact of the check's record (nothing when the pool did not change). */
function noteRecount(scn: Scenario, recount: Recount): void {
  if ('failed' in recount)
    scn.note('engine', RUN_FACT_TAGS.recount, '(the pool could not be counted again)', {
      facts: { failed: recount.failed },
    });
  else if (recount.change)
    scn.note('engine', RUN_FACT_TAGS.recount, '(the pool counted again after the check)', {
      facts: { ...recount.change },
    });
}

function verdictOf(j: Judgement, expected: string | null): CheckResult['verdict'] {
  return j.skipped && j.outcome === null ? 'skipped' : verdictFor(j.outcome, expected);
}

type ResultBase = Pick<CheckResult, 'id' | 'title' | 'severity' | 'expected' | 'expectedRef' | 'expectedBasis'>;

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
export function skipReason(def: Pick<CheckDefinition, 'requires' | 'skipIf'>, ctx: RunContext): string | null {
  return def.skipIf?.(ctx) ?? unmetRequirement(def, ctx);
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

/** The visits right after a check, to every backend its steps reported (engine/sweep.ts, tidy). */
function tidyAfter(def: CheckDefinition, ctx: RunContext, scn: Scenario): Promise<Findings> {
  if (scn.steps.every(isRunFact)) return Promise.resolve({ left: [], unreached: [] });
  return traced('part', def.id, 'tidy', () => tidy(ctx, [def.id], scn.pooledBackends(), withSpares(new Scenario(ctx))));
}

/**
 * Where the check's last steps may carry the tidy-up's statements: a check that can leave state,
 * under transaction or statement pooling (as for spares: sessions there hold no backend between
 * transactions) with transaction holders, on a counted pool.
 */
function inlineTidyAllowed(def: CheckDefinition, ctx: RunContext): boolean {
  return (
    !def.leavesNoState &&
    sparesAllowed(ctx) &&
    ctx.discovery.holderStrategy === 'transaction' &&
    ctx.discovery.poolSize !== null
  );
}

/**
 * The tidy-up's findings from the check's own last steps, when they stand for its visits
 * (inlineCoverage); null when the visits must run. What any inline inspection found is counted
 * either way: the visits after it would find nothing it removed.
 */
function inlineFindings(scn: Scenario, ctx: RunContext): Findings | null {
  const inlineOn = inlineCoverage(scn, ctx.discovery.poolSize);
  return inlineOn ? { left: inlineLeftovers(scn), unreached: [], inlineOn } : null;
}

/** What the inline inspections found (and their cleanup removed), as the visits say it. */
function inlineLeftovers(scn: Scenario): string[] {
  return scn.inlineVisits.flatMap((v) => {
    const counts = v.sets[1]?.[0];
    return counts && v.pid !== null ? leftoversOn(v.pid, (col) => Number(counts[col] ?? 0)) : [];
  });
}

/** The tidy-up's visitors log in ahead of need too (never interrupted: no signal). */
function withSpares(scn: Scenario): Scenario {
  scn.useSpares();
  return scn;
}

/**
 * Cleanup steps are tagged `*.cleanup`; any error in them is reported, and so is anything the
 * visits after the check found left behind (and removed).
 */
function cleanupStatus(
  steps: readonly StepRecord[],
  missed: Findings,
  /** The check's leavesNoState, when it declares one: said instead of a count of none. */
  noState?: string,
): CheckResult['cleanup'] {
  const failed = steps.filter((s) => isCleanupTag(s.tag) && (s.error || s.timedOut));
  const left = [
    ...(missed.left.length > 0 ? [`left behind, removed right after the check: ${missed.left.join('; ')}`] : []),
    ...(missed.unreached.length > 0
      ? [
          `backend(s) ${missed.unreached.join(', ')} busy with other clients right after the check: left to the final sweep`,
        ]
      : []),
  ];
  const cleanups = steps.filter((s) => isCleanupTag(s.tag)).length;
  if (failed.length === 0 && left.length === 0)
    return {
      ok: true,
      detail:
        noState && cleanups === 0
          ? `nothing to clean, no tidy-up visit: ${noState}`
          : `${cleanups} cleanup step(s) succeeded${tidiedBy(missed)}`,
    };
  return {
    ok: false,
    detail:
      [...failed.map((s) => `${s.session} ${s.tag}: ${s.error?.message ?? 'timed out'}`), ...left].join('; ') +
      tidiedBy(missed),
  };
}

/** Where the check's own last steps did the tidy-up (steering/inline-tidy.ts), said so. */
function tidiedBy(missed: Findings): string {
  return missed.inlineOn ? `; tidy-up done by the check's last steps on backends ${missed.inlineOn.join(', ')}` : '';
}
