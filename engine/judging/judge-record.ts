/**
 * The judgement of a check, as a pure function of its record. {@link judgeRecord}: the check's
 * judge, then the vetoes (vetoes.ts) on whatever it concluded; {@link judgeRun}: that, then what
 * the engine recorded about the run (run-facts.ts: the run error, an interruption, a target that
 * did not answer again, the pool counted again). A stored report's outcome, reason and facts
 * are judgeRun of its steps and discovery: test/judges/rejudge.test.ts holds every stored
 * record to that.
 */
import type { CheckMeta as CheckDefinition } from '../record/check-meta.js';
import type { Discovery, Judgement, StepRecord } from '../types.js';
import { failedStep } from './absence.js';
import { capacityRefusalIn, isCapacityRefusal } from '../record/capacity-refusal.js';
import { describeChange } from '../record/pool-change.js';
import { describeViolationStep, protocolViolationIn } from './protocol.js';
import { isRunFact, runFactsOf, type RunFacts } from '../record/run-facts.js';
import { firstVeto, otherRunsIn } from './vetoes.js';

type Judged = Pick<CheckDefinition, 'judge' | 'restsOn' | 'answersWithRefusals'>;

/**
 * The check's judge, then the vetoes. A protocol violation is checked first, whatever the judge
 * makes of the record, because the record is then the target's misbehaviour. An inconclusive
 * judgement that ran into a refusal at capacity says so. Pure, so tests can apply it to
 * recorded logs.
 */
export function judgeRecord(def: Judged, steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const violation = protocolViolationIn(steps);
  if (violation) return violationJudgement(def, steps, discovery, violation);
  let judgement: Judgement;
  try {
    judgement = def.judge(steps, discovery);
  } catch (err) {
    return { outcome: null, facts: {}, reason: `judge failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (judgement.outcome === null) {
    const refused = capacityRefusalIn(steps);
    return withOtherRuns(refused ? limitJudgement(judgement, failedStep(refused), discovery) : judgement, steps);
  }
  const veto = firstVeto({
    steps,
    discovery,
    restsOn: def.restsOn ?? [],
    answersWithRefusals: def.answersWithRefusals === true,
    outcome: judgement.outcome,
  });
  if (!veto) return judgement;
  return {
    outcome: null,
    facts: { ...judgement.facts, unprovenOutcome: judgement.outcome, ...veto.facts },
    reason: veto.reason,
  };
}

/**
 * An inconclusive judgement made while other pooltest runs worked on the target says so first:
 * their holders and sessions share the pool, and are the likely reason a step waited (the
 * vetoes say it of a proposed outcome; the judge's own reason is kept after it).
 */
function withOtherRuns(judgement: Judgement, steps: readonly StepRecord[]): Judgement {
  const others = otherRunsIn(steps);
  if (others <= 0) return judgement;
  return {
    ...judgement,
    facts: { ...judgement.facts, otherPooltestRuns: others },
    reason: `not conclusive: ${others} other pooltest run(s) worked on this target during the check, sharing its pool; run one at a time for a conclusive answer (${judgement.reason})`,
  };
}

/**
 * The whole judgement of a recorded run of a check: {@link judgeRecord} of the check's own steps
 * (an interrupted run is inconclusive whatever they say), then what the engine recorded about
 * the run. Pure: the executor (engine/execute/execute.ts) returns exactly this, and the judgement the
 * check's judge returned is never changed (a caller may hold it: the drivers' vetoes do).
 */
export function judgeRun(def: Judged, steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const run = runFactsOf(steps);
  if (run.notRun)
    return {
      outcome: null,
      facts: { ...run.notRun.facts },
      reason: run.notRun.reason,
      ...(run.notRun.verdict === 'skipped' ? { skipped: true } : {}),
    };
  const own = steps.filter((s) => !isRunFact(s));
  const judged = run.interrupted ? interruptedJudgement(def, own, discovery) : judgeRecord(def, own, discovery);
  return withRecount(withRunError(judged, run.runError, own, discovery), run);
}

/**
 * An inconclusive judgement of a scenario that threw starts with its error, and reads as a
 * refusal at capacity when the error was one (unless the judge already said so).
 */
function withRunError(
  j: Judgement,
  runError: string | null,
  own: readonly StepRecord[],
  discovery: Discovery,
): Judgement {
  if (!runError || j.outcome !== null) return j;
  // A protocol violation's evidence is already in the reason (judgeRecord): not said twice.
  const said = protocolViolationIn(own) ? j : { ...j, reason: `${runError}; ${j.reason}` };
  if (said.facts.clientLimit || !isCapacityRefusal({ message: runError })) return said;
  const limited = limitJudgement(said, runError, discovery);
  // A judge's skip stays one (amending the judge's object in place kept it too).
  return said.skipped ? { ...limited, outcome: null, skipped: true } : limited;
}

/** A target that did not answer again, and the pool counted again, as facts (and a finding). */
function withRecount(j: Judgement, run: RunFacts): Judgement {
  const facts: Judgement['facts'] = { ...j.facts, ...(run.targetGone ? { targetGone: true } : {}) };
  const { recount } = run;
  if (recount && 'failed' in recount) return { ...j, facts: { ...facts, poolRecount: `failed: ${recount.failed}` } };
  if (!recount) return run.targetGone ? { ...j, facts } : j;
  return {
    ...j,
    facts: { ...facts, poolShrank: true, poolBefore: recount.before, poolAfter: recount.after },
    reason: `${j.reason}; availability finding: ${describeChange(recount)}${recount.blocking ? ', too few to steer the checks after it' : ''}`,
  };
}

/**
 * An inconclusive check that ran into the pooler's refusal at capacity: say exactly that it
 * could not be steered within the clients the pooler admits (discovery.clientLimit), and which
 * refusal stopped it, verbatim.
 */
function limitJudgement(j: Judgement, refusal: string, d: Discovery): Judgement {
  const limit = d.clientLimit
    ? `the pooler admits ${d.clientLimit.clients} client(s) at once`
    : 'the pooler refused a client at capacity';
  return {
    outcome: null,
    facts: { ...j.facts, clientLimit: d.clientLimit?.clients ?? null },
    reason: `not steerable here: ${limit} and this check needed one more (${refusal}); ${j.reason}`,
  };
}

/** The target sent a malformed message: inconclusive, naming the message, its lengths, the step and the bytes. */
function violationJudgement(
  def: Pick<CheckDefinition, 'judge'>,
  steps: readonly StepRecord[],
  discovery: Discovery,
  violation: StepRecord,
): Judgement {
  let unproven: string | null = null;
  try {
    unproven = def.judge(steps, discovery).outcome;
  } catch {
    unproven = null;
  }
  const without = unproven ? ` (without that the record would read "${unproven}")` : '';
  return {
    outcome: null,
    facts: { protocolViolation: describeViolationStep(violation), ...(unproven ? { unprovenOutcome: unproven } : {}) },
    reason: `not conclusive: the target broke the PostgreSQL wire protocol during the check, in step ${describeViolationStep(violation)}${without}`,
  };
}

/** A scenario cut short by an interruption proves nothing: its record is incomplete by design. */
function interruptedJudgement(def: Judged, steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const partial = judgeRecord(def, steps, discovery);
  return {
    outcome: null,
    facts: { ...partial.facts, interrupted: true },
    reason:
      'interrupted: the run was cancelled while this check ran; its sessions were closed and the sweep cleans what they left',
  };
}
