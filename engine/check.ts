/**
 * What a check is (metadata, scenario, judge) and how one is executed: drive the scenario,
 * always clean up, judge the record, compare with the profile. `executeCheck` needs no Vitest;
 * `checkTest` in vitest-check.ts wires it into a test.
 */
import type { AuditClaims } from './audit-claims.js';
import { isPooltestError } from './errors.js';
import { Scenario, type RunContext } from './steering/scenario.js';
import { unprovenLandings } from './judging/landing.js';
import { failedStep } from './judging/absence.js';
import { anyAnswer, nothingAnswered, outageIn } from './judging/outage.js';
import { capacityRefusalIn, isCapacityRefusal } from './judging/capacity-refusal.js';
import { describeViolationStep, protocolViolationIn } from './judging/protocol.js';
import { numberOf } from './judging/record.js';
import { OTHER_RUNS_TAG, otherRunsActive } from './steering/other-runs.js';
import { tidy, type Findings } from './sweep.js';
import { untilAnswering } from './steering/until-answering.js';
import { describeGone, markTargetGone, targetGone } from './target-gone.js';
import { blockingChange, describeChange, recountAfter, takeRecountFailure } from './pool-watch.js';
import { verdictFor } from './verdict.js';
import { sparesAllowed } from './steering/spare-session.js';
import type { CheckResult, Discovery, Judgement, Profile, Severity, StepRecord } from './types.js';

/** What one outcome label means for its check, whether it breaks an application, and the fix. */
export interface OutcomeInfo {
  /** The label's meaning for this check, one sentence (README and INTERPRETING derive from it). */
  means: string;
  /**
   * Whether an application written for a direct connection sees a difference. Used by diff,
   * --compare, the audit and watch to call a change a break or a fix.
   */
  breaks: boolean;
  /** One line a developer can act on, for labels that need action. */
  advice?: string;
}

/**
 * What a check needs of the target before it can say anything. Unmet needs that the run
 * context shows make the check `skipped` (see {@link unmetRequirement}); needs only the
 * record can show (a role the login may assume) are reported by the judge as skipped.
 * - `fixture`: a throwaway server pooltest started, never a shared one;
 * - `assumable-role`: a role the login may `SET ROLE` to;
 * - `create-schema`: the login may create a schema (the check degrades without it);
 * - `create-table`: the login may create a table in its default schema.
 */
export type Requirement = 'fixture' | 'assumable-role' | 'create-schema' | 'create-table';

/**
 * - `destructive`: can damage the pool it runs on (a client killed inside a transaction, a
 *   flood of clients): runs after all the others, in catalogue order, and the pool is counted
 *   again after it;
 * - `timing-dependent`: its conclusion rests on waits measured against the wait bound.
 */
export type CheckFlag = 'destructive' | 'timing-dependent';

/**
 * A landing the check's conclusion rests on (see judging/landing.ts): the steps tagged
 * `observe` tried to reach the backend of the step tagged `create`. When none reached it, the
 * record must prove the pooler kept that backend from other clients, or the check is
 * inconclusive. Tags may carry a phase prefix (`discard:A.create`): each phase is read apart.
 */
export interface LandingNeed {
  create: string;
  observe: string;
}

/**
 * The recorded step a check's outcome turns on, as the sequence diagrams highlight it
 * (reporters/sequence-model.ts): the first step with this tag (any phase prefix, `set:A.create`
 * matches `A.create`; no tag: any step) that had an error (`has: 'error'`) or received a
 * notification (`has: 'notification'`).
 */
export interface DecisiveStep {
  tag?: string;
  has: 'error' | 'notification';
}

/** How the audit and watch describe an application statement that depends on this check. */
export interface AuditHint {
  /** The kind of statement, as a finding's heading shows it. */
  statement: string;
  /** What transaction pooling typically does to it, in a few words. */
  consequence: string;
  /** Lower is shown first when a statement touches several checks (security first). */
  priority: number;
  /**
   * Settings the check gives an outcome of its own, in the facts as `<Name>.outcome` (matched
   * without regard to case): the audit and watch join a finding about one of them with that
   * outcome instead of the check's, which is the worst of them.
   */
  perParameter?: readonly string[];
  /**
   * The SQL this check is the one to ask about: statement kinds, settings and built-in
   * functions, each from the vocabulary of audit-claims.ts. The catalogue refuses an item
   * claimed by two checks or by none.
   */
  claims: AuditClaims;
}

/**
 * One check, as data plus two functions: everything pooltest says about the check (its labels,
 * their meanings, advice, references, needs) is declared here and derived elsewhere.
 * `Id` and `Label` keep the literal id and labels so the catalogue's types are exact.
 */
export interface CheckDefinition<Id extends string = string, Label extends string = string> {
  /** Stable `area/behaviour` id: part of the public contract, and the path of its files under suites/. */
  id: Id;
  /** States the behaviour under test, e.g. "SET statement_timeout stays with its client". */
  title: string;
  /** What the check does, in one line for the README's table. */
  summary: string;
  severity: Severity;
  /** Documentation the behaviour is described in. */
  docs: readonly string[];
  /** Every label the judge may report, in the order INTERPRETING lists them. */
  outcomes: Readonly<Record<Label, OutcomeInfo>>;
  requires?: readonly Requirement[];
  flags?: readonly CheckFlag[];
  /** The landings the conclusion rests on; the engine vetoes an unproven one. */
  restsOn?: readonly LandingNeed[];
  /**
   * The step the outcome turns on, when it is not the crossing (another client landing on the
   * backend A created state on, which the diagrams find by themselves): the first match wins.
   */
  decisive?: readonly DecisiveStep[];
  /** Present when application statements can depend on this behaviour (audit, watch). */
  audit?: AuditHint;
  /**
   * A refusal at capacity (53300, "no more connections allowed", query_wait_timeout) can be
   * this check's answer (capacity checks). For every other check such a refusal of one of its
   * statements means the pool had no room at that moment, and nothing is concluded.
   */
  answersWithRefusals?: boolean;
  /** Why this check cannot run against this target (it is then `skipped`), or null. */
  skipIf?(ctx: RunContext): string | null;
  /** Drives sessions and records; must not judge. */
  scenario(scn: Scenario): Promise<void>;
  /** Pure: decides the outcome from the record. */
  judge(steps: readonly StepRecord[], discovery: Discovery): Judgement;
  /** One line of evidence for the terminal table. */
  evidence?(j: Judgement, steps: readonly StepRecord[]): string;
}

/** Declares a check, keeping its literal id and labels for the catalogue's types. */
export function defineCheck<const Id extends string, const Label extends string>(
  def: CheckDefinition<Id, Label>,
): CheckDefinition<Id, Label> {
  return def;
}

/** The advice a check gives for `outcome`, or null. */
export function adviceFor(def: Pick<CheckDefinition, 'outcomes'>, outcome: string | null): string | null {
  if (outcome === null || !Object.hasOwn(def.outcomes, outcome)) return null;
  return (def.outcomes as Record<string, OutcomeInfo>)[outcome]!.advice ?? null;
}

/** The labels a check may report, in declared order. */
export function labelsOfCheck(def: Pick<CheckDefinition, 'outcomes'>): string[] {
  return Object.keys(def.outcomes);
}

/** Why the run context does not meet the check's declared needs, or null. */
export function unmetRequirement(def: Pick<CheckDefinition, 'requires'>, ctx: RunContext): string | null {
  if (def.requires?.includes('fixture') && !ctx.fixture) {
    return 'fixtures only: it floods or damages the pool, which would starve the other clients of a shared server';
  }
  return null;
}

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
  const base = resultBase(def, profile);
  const skip = def.skipIf?.(ctx) ?? unmetRequirement(def, ctx);
  if (skip) return notRun(base, 'skipped', skip);
  // A pool that shrank below what steering needs, earlier in this run: nothing to steer with.
  const shrunk = blockingChange(ctx.runId);
  if (shrunk)
    return notRun(
      base,
      'inconclusive',
      `not run: ${describeChange(shrunk)}, too few to steer this check; re-run once the pooler has its servers back`,
      { poolBefore: shrunk.before, poolAfter: shrunk.after },
    );
  // A target that stopped answering after an earlier check: no bounds paid against silence.
  const silent = targetGone(ctx.runId);
  if (silent) return notRun(base, 'inconclusive', describeGone(silent), { targetGoneAfter: silent.check });
  const scn = new Scenario(ctx, signal);
  // Logins ahead of need (steering/spare-session.ts): made while the previous check ended.
  scn.useSpares();
  let runError: string | null = null;
  // Before: another run in the middle of a statement. During: any backend it
  // used since this check began (a run that finished earlier changes nothing after it ended).
  // Over --direct the question uses no pooled backend, so it goes alongside the scenario's
  // first steps; through the target it comes first, since its query takes a backend a moment.
  const askedBefore = otherRunsActive(ctx, 0);
  if (!ctx.direct) await askedBefore;
  try {
    await def.scenario(scn);
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
  const closed = scn.closeAll();
  // Only where a closing client holds nothing a visitor needs (as for spares): a pooler with a
  // client limit may not yet have freed the check's slots for the visitors.
  const tidied =
    ctx.direct && sparesAllowed(ctx) && !scn.interrupted && !unavailable
      ? closed.then(() => tidyAfter(def, ctx, scn))
      : null;
  const [, othersDuring] = await Promise.all([
    closed,
    scn.interrupted ? null : otherRunsActive(ctx, performance.now() - started),
  ]);
  const others = Math.max(othersBefore ?? 0, othersDuring ?? 0);
  if (others > 0)
    scn.note('engine', OTHER_RUNS_TAG, `(${others} other pooltest run(s) active on this target during the check)`, {
      facts: { other_runs: others },
    });
  const judgement = scn.interrupted
    ? interruptedJudgement(def, scn.steps, ctx.discovery)
    : judgeRecord(def, scn.steps, ctx.discovery);
  // A protocol violation's evidence is already in the reason (judgeRecord): not said twice.
  if (runError && judgement.outcome === null && !protocolViolationIn(scn.steps))
    judgement.reason = `${runError}; ${judgement.reason}`;
  if (
    runError &&
    judgement.outcome === null &&
    !judgement.facts.clientLimit &&
    isCapacityRefusal({ message: runError })
  )
    Object.assign(judgement, limitJudgement(judgement, runError, ctx.discovery));
  const verdict =
    judgement.skipped && judgement.outcome === null ? 'skipped' : verdictFor(judgement.outcome, base.expected);
  // After an outage (a restarting pooler or server), the next check starts once the target
  // answers again (bounded), rather than failing fast while it is still down. The wait is
  // announced (progress line) and counted in this check's duration: it is this check's time.
  let answersAgain = true;
  if (unavailable) {
    const boundMs = ctx.bounds.connectMs + ctx.bounds.stepMs;
    events.onWait?.(`the target to answer again (${def.id} found it unavailable)`, boundMs);
    answersAgain = await untilAnswering(ctx, boundMs);
    if (!answersAgain) {
      markTargetGone(ctx.runId, def.id, boundMs);
      judgement.facts.targetGone = true;
    }
  }
  const durationMs = Math.round(performance.now() - started);
  // Never interrupted: an interrupted check is exactly the one most likely to leave state.
  // Against a target that no longer answers, what the check touched is left to the sweep.
  const missed = answersAgain
    ? await (tidied ?? tidyAfter(def, ctx, scn))
    : { left: [], unreached: touchedBy(scn.steps) };
  // A check that can damage the pool: count it again; a smaller one is this check's finding.
  const change =
    def.flags?.includes('destructive') && !scn.interrupted && answersAgain ? await recountAfter(ctx, def.id) : null;
  const recountFailed = takeRecountFailure(ctx.runId);
  if (recountFailed) judgement.facts.poolRecount = `failed: ${recountFailed}`;
  if (change) {
    Object.assign(judgement.facts, { poolShrank: true, poolBefore: change.before, poolAfter: change.after });
    judgement.reason = `${judgement.reason}; availability finding: ${describeChange(change)}${change.blocking ? ', too few to steer the checks after it' : ''}`;
  }
  return {
    ...base,
    outcome: judgement.outcome,
    verdict,
    reason: judgement.reason,
    facts: judgement.facts,
    evidence: def.evidence?.(judgement, scn.steps) ?? judgement.reason,
    advice: adviceFor(def, judgement.outcome),
    steps: scn.steps,
    durationMs,
    statements: scn.recorder.statements,
    cleanup: cleanupStatus(scn.steps, missed),
  };
}

/** The visits right after a check, to every backend its steps reported (engine/sweep.ts, tidy). */
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

/** The result of a check that did not run: skipped (a requirement), or inconclusive with why. */
export function notRun(
  base: ResultBase,
  verdict: 'skipped' | 'inconclusive',
  reason: string,
  facts: Judgement['facts'] = {},
): CheckResult {
  return {
    ...base,
    outcome: null,
    verdict,
    reason,
    facts,
    evidence: reason,
    advice: null,
    steps: [],
    durationMs: 0,
    statements: 0,
    cleanup: { ok: true, detail: 'nothing to clean' },
  };
}

function tidyAfter(def: CheckDefinition, ctx: RunContext, scn: Scenario): Promise<Findings> {
  if (scn.steps.length === 0) return Promise.resolve({ left: [], unreached: [] });
  return tidy(ctx, [def.id], touchedBy(scn.steps), withSpares(new Scenario(ctx)));
}

/** The tidy-up's visitors log in ahead of need too (never interrupted: no signal). */
function withSpares(scn: Scenario): Scenario {
  scn.useSpares();
  return scn;
}

function touchedBy(steps: readonly StepRecord[]): number[] {
  return [...new Set(steps.map((s) => s.pid).filter((p): p is number => p !== null))];
}

/**
 * The check's judge, then what the engine knows about any record. No conclusion stands when
 * - another pooltest run was active during the check (steering/other-runs.ts: its session
 *   resets can erase this run's state on shared backends);
 * - the target was unavailable during the check (judging/outage.ts: a restarting server's
 *   errors are no refusal), or every connection of the check failed (nothing answered);
 * - a statement of the check was refused at capacity (judging/capacity-refusal.ts: no room
 *   is no answer), unless the check answers with such refusals (capacity checks);
 * - a landing missed A's backend without proof that the pooler kept it (judging/landing.ts: a
 *   candidate queued behind other clients' traffic, a pool that changed).
 * - the target broke the wire protocol (judging/protocol.ts): checked first, whatever the judge
 *   makes of the record, because the record is then the target's misbehaviour.
 * Pure, so tests can apply it to recorded logs.
 */
export function judgeRecord(
  def: Pick<CheckDefinition, 'judge' | 'restsOn' | 'answersWithRefusals'>,
  steps: readonly StepRecord[],
  discovery: Discovery,
): Judgement {
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
    return refused ? limitJudgement(judgement, failedStep(refused), discovery) : judgement;
  }
  const others =
    numberOf(
      steps.find((s) => s.tag === OTHER_RUNS_TAG),
      'other_runs',
    ) ?? 0;
  const unproven = `(without that the record would read "${judgement.outcome}")`;
  if (others > 0) {
    const why =
      `${others} other pooltest run(s) worked on this target during the check, ` +
      'and their checks reset whole sessions (DISCARD ALL, RESET ALL) on shared backends';
    return {
      outcome: null,
      facts: { ...judgement.facts, unprovenOutcome: judgement.outcome, otherPooltestRuns: others },
      reason: `not conclusive: ${why}; run one at a time for a conclusive answer ${unproven}`,
    };
  }
  const outage = outageIn(steps) ?? nothingAnswered(steps);
  if (outage) {
    const what = failedStep(outage);
    const none = nothingAnswered(steps) ? '; no connection of the check was answered' : '';
    return {
      outcome: null,
      facts: { ...judgement.facts, unprovenOutcome: judgement.outcome },
      reason: `not conclusive: the target was unavailable during the check (${what}${none}) ${unproven}`,
    };
  }
  // A statement refused for want of room (not a landing candidate: a refused candidate is a
  // queue, judging/landing.ts) - the pooler never ran it, so it neither refused nor allowed it.
  const full = def.answersWithRefusals
    ? undefined
    : steps.find((x) => isCapacityRefusal(x.error) && !/(^|\.)connect$/.test(x.tag) && !/observe\.take$/.test(x.tag));
  if (full) {
    const what = failedStep(full);
    return {
      outcome: null,
      facts: { ...judgement.facts, unprovenOutcome: judgement.outcome },
      reason: `not conclusive: the pooler had no room for a client of the check (${what}), a refusal at capacity, not an answer to the statement ${unproven}`,
    };
  }
  const doubts = unprovenLandings(steps, discovery, def.restsOn ?? []);
  if (doubts.length === 0) return judgement;
  return {
    outcome: null,
    facts: { ...judgement.facts, unprovenOutcome: judgement.outcome },
    reason: `not conclusive: ${doubts.join('; ')} (without that doubt the record would read "${judgement.outcome}")`,
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
function interruptedJudgement(
  def: Pick<CheckDefinition, 'judge' | 'restsOn' | 'answersWithRefusals'>,
  steps: readonly StepRecord[],
  discovery: Discovery,
): Judgement {
  const partial = judgeRecord(def, steps, discovery);
  return {
    outcome: null,
    facts: { ...partial.facts, interrupted: true },
    reason:
      'interrupted: the run was cancelled while this check ran; its sessions were closed and the sweep cleans what they left',
  };
}

/**
 * Cleanup steps are tagged `*.cleanup`; any error in them is reported, and so is anything the
 * visits after the check found left behind (and removed).
 */
function cleanupStatus(steps: readonly StepRecord[], missed: Findings): CheckResult['cleanup'] {
  const failed = steps.filter((s) => s.tag.endsWith('cleanup') && (s.error || s.timedOut));
  const left = [
    ...(missed.left.length > 0 ? [`left behind, removed right after the check: ${missed.left.join('; ')}`] : []),
    ...(missed.unreached.length > 0
      ? [
          `backend(s) ${missed.unreached.join(', ')} busy with other clients right after the check: left to the final sweep`,
        ]
      : []),
  ];
  if (failed.length === 0 && left.length === 0)
    return { ok: true, detail: `${steps.filter((s) => s.tag.endsWith('cleanup')).length} cleanup step(s) succeeded` };
  return {
    ok: false,
    detail: [...failed.map((s) => `${s.session} ${s.tag}: ${s.error?.message ?? 'timed out'}`), ...left].join('; '),
  };
}
