/**
 * The phases of one check after its before-run checks (engine/execute/execute.ts runs them in order):
 * the scenario, close and tidy-up, the run's facts, the judgement. Each phase adds to one
 * record, the scenario's steps; the result is judgeRun of that record, so nothing decided here
 * stays out of it. The question about other runs, the target-gone mark and the wait after an
 * outage are the phases a driver configuration shares (run-phases.ts).
 */
import { adviceFor, type CheckDefinition } from './check.js';
import { isPooltestError } from '../record/errors.js';
import { judgeRun } from '../judging/judge-record.js';
import { isRunFact, RUN_FACT_TAGS } from '../record/run-facts.js';
import { recountAfter, type Recount } from '../discovery/pool-watch.js';
import { foundUnavailable, noteOtherRuns, OtherRunsQuestion, untilBack } from './run-phases.js';
import { Scenario, type RunContext } from '../steering/scenario.js';
import { sparesAllowed } from '../steering/spare-session.js';
import { inlineTidyStatements } from '../steering/inline-tidy.js';
import {
  cleanupStatus,
  inlineFindings,
  inlineLeftovers,
  inlineMissed,
  inlineTidyAllowed,
  tidyAfter,
} from './check-tidy.js';
import { visitStatements, type Findings } from '../sweep/sweep.js';
import { traced } from '../record/trace.js';
import type { CheckResult, Judgement } from '../types.js';
import { verdictFor } from '../record/verdict.js';

/** What the scenario phase leaves for the phases after it. */
export interface ScenarioRun {
  scn: Scenario;
  /** The scenario's error (`CODE: message` for a PooltestError), null when it finished. */
  runError: string | null;
  others: OtherRunsQuestion;
  /** The record shows the target unavailable (run-phases.ts, foundUnavailable). */
  unavailable: boolean;
}

/**
 * Scenario: drives the check's scenario with the question about other runs around it, and the
 * tidy-up's statements handed to its last steps where they may carry them. Never throws.
 */
export async function runScenario(
  def: CheckDefinition,
  ctx: RunContext,
  started: number,
  signal?: AbortSignal,
): Promise<ScenarioRun> {
  const scn = new Scenario(ctx, signal);
  // Logins ahead of need (steering/spare-session.ts): made while the previous check ended,
  // taken from its first login on (a crowd check ends them before it logs in anyone).
  scn.useSparesFromFirstOpen();
  const others = new OtherRunsQuestion(ctx, started);
  await others.ready();
  if (inlineTidyAllowed(def, ctx)) scn.inlineTidy = inlineTidyStatements(visitStatements(ctx.runId, [def.id]));
  // Other runs during the check: asked once its evidence is in, alongside its cleanup.
  scn.whenEvidenceComplete(() => others.askDuring());
  let runError: string | null = null;
  try {
    await traced('part', def.id, 'scenario', () => def.scenario(scn));
  } catch (err) {
    runError = isPooltestError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  }
  return {
    scn,
    runError,
    others,
    unavailable: foundUnavailable(scn.steps, { runError, interrupted: scn.interrupted }),
  };
}

/** What the close leaves: other runs seen, and the tidy-up where it is done or under way. */
export interface Closed {
  others: number;
  /** The check's last steps did the tidy-up's work on every backend it needs (inline-tidy.ts). */
  inline: Findings | null;
  /** Why the visits run though the check's last steps carried the tidy-up (inline-tidy.ts), or null. */
  inlineMissed: string | null;
  /** Visits begun while the check's clients said goodbye, or null. */
  tidied: Promise<Findings> | null;
}

/**
 * Close and tidy-up: closes the check's sessions while the question about other runs goes (it
 * touches none of them), starts the next check's spares, and starts the tidy-up's visits where
 * they may go alongside the close.
 */
export async function closeScenario(def: CheckDefinition, ctx: RunContext, run: ScenarioRun): Promise<Closed> {
  const { scn, unavailable } = run;
  const closed = traced('part', def.id, 'close', () => scn.closeAll());
  const ended = !scn.interrupted && !unavailable;
  const inline = ended ? inlineFindings(scn, ctx) : null;
  const inlineMissedWhy = ended && !inline ? inlineMissed(scn, ctx) : null;
  // The next check's logins ahead of need start as this one ends: by the tidy-up's visitors
  // (withSpares), or here for a check that has none (at a distance a login is three round trips
  // the next check would begin with). Not after a crowd, which ended them to count only its own
  // clients: the capacity checks run one after another, and spares between two crowds would
  // only be closed again.
  if ((def.leavesNoState || inline) && !scn.countsOwnClientsOnly && ended) new Scenario(ctx).useSpares();
  // Over --direct the visits touch no pooled backend the question needs, and only where a
  // closing client holds nothing a visitor needs (as for spares): a pooler with a client limit
  // may not yet have freed the check's slots for the visitors. There the visits start while the
  // check's clients say goodbye (at a distance a close is half a round trip; a visitor that
  // reaches a backend a closing client still has just queues for it).
  const tidied = inline
    ? Promise.resolve(inline)
    : ctx.direct && sparesAllowed(ctx) && ended && !def.leavesNoState
      ? tidyAfter(def, ctx, scn)
      : null;
  const others = await run.others.answer(closed, !scn.interrupted);
  return { others, inline, inlineMissed: inlineMissedWhy, tidied };
}

/**
 * Run facts: what the engine learned about the run, noted in the record (judging/run-facts.ts):
 * other runs, the scenario's error, an interruption; after an outage, the bounded wait for the
 * target (announced, and counted in this check's time) and, when it stays silent, that it is
 * gone. Returns whether the target answers.
 */
export async function noteRunFacts(
  def: CheckDefinition,
  ctx: RunContext,
  run: ScenarioRun,
  others: number,
  onWait?: (what: string, boundMs: number) => void,
): Promise<boolean> {
  const { scn, runError } = run;
  noteOtherRuns(scn, others, 'the check');
  if (runError) scn.note('engine', RUN_FACT_TAGS.runError, '(the scenario failed)', { facts: { message: runError } });
  if (scn.interrupted) scn.note('engine', RUN_FACT_TAGS.interrupted, '(the run was cancelled during the check)');
  if (!run.unavailable) return true;
  const back = await untilBack(ctx, def.id, onWait);
  if (!back.answers)
    scn.note('engine', RUN_FACT_TAGS.targetGone, '(the target did not answer again after the check)', {
      facts: { waitedMs: back.boundMs },
    });
  return back.answers;
}

/**
 * The tidy-up's visits, when the check needs them and the target answers (never interrupted:
 * an interrupted check is exactly the one most likely to leave state; against a target that no
 * longer answers, what the check touched is left to the sweep), then the pool counted again
 * after a check that can damage it. Returns what the cleanup status reports.
 */
export async function tidyUp(
  def: CheckDefinition,
  ctx: RunContext,
  scn: Scenario,
  closed: Closed,
  answersAgain: boolean,
): Promise<Findings> {
  // A check that cannot leave state (leavesNoState) is not visited: nothing of it can be found.
  const visited = def.leavesNoState
    ? { left: [], unreached: [] }
    : answersAgain
      ? await (closed.tidied ?? tidyAfter(def, ctx, scn))
      : { left: [], unreached: scn.pooledBackends() };
  // A smaller pool after a destructive check is this check's finding.
  if (def.flags?.includes('destructive') && !scn.interrupted && answersAgain)
    noteRecount(scn, await traced('part', def.id, 'recount', () => recountAfter(ctx, def.id)));
  // Visits that ran after inline inspections would not find what those removed: said here.
  if (closed.inline) return visited;
  const why = closed.inlineMissed ? { inlineMissed: closed.inlineMissed } : {};
  return { ...visited, left: [...inlineLeftovers(scn), ...visited.left], ...why };
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

/** What every result of a check says whatever happened (execute.ts, resultBase). */
export type ResultBase = Pick<CheckResult, 'id' | 'title' | 'severity' | 'expected' | 'expectedRef' | 'expectedBasis'>;

/** Judge: the result, judgeRun of the whole record compared with the profile's expectation. */
export function judged(
  def: CheckDefinition,
  ctx: RunContext,
  base: ResultBase,
  scn: Scenario,
  done: { durationMs: number; missed: Findings },
): CheckResult {
  const judgement = judgeRun(def, scn.steps, ctx.discovery);
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
    durationMs: done.durationMs,
    statements: scn.recorder.statements,
    cleanup: cleanupStatus(scn.steps, done.missed, def.leavesNoState),
  };
}

function verdictOf(j: Judgement, expected: string | null): CheckResult['verdict'] {
  return j.skipped && j.outcome === null ? 'skipped' : verdictFor(j.outcome, expected);
}
