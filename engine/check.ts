/**
 * What a check is (metadata, scenario, judge) and how one is executed: drive the scenario,
 * always clean up, judge the record, compare with the profile. `executeCheck` needs no Vitest;
 * `checkTest` in vitest-check.ts wires it into a test.
 */
import { isPooltestError } from './errors.js';
import { Scenario, type RunContext } from './steering/scenario.js';
import { unprovenLandings } from './judging/landing.js';
import { outageIn } from './judging/outage.js';
import { numberOf } from './judging/record.js';
import { OTHER_RUNS_TAG, otherRunsActive } from './steering/other-runs.js';
import { tidy, type Findings } from './sweep.js';
import { untilAnswering } from './steering/until-answering.js';
import { verdictFor } from './verdict.js';
import type { CheckResult, Discovery, Judgement, Profile, Severity, StepRecord } from './types.js';

export interface CheckDefinition {
  /** Stable `area/behaviour` id: part of the public contract. */
  id: string;
  /** States the behaviour under test, e.g. "SET statement_timeout stays with its client". */
  title: string;
  severity: Severity;
  /** Documentation the behaviour is described in. */
  docs: string[];
  /** One line a developer can act on, per outcome label that needs action. */
  advice: Record<string, string>;
  /** Why this check cannot run against this target (it is then `skipped`), or null. */
  skipIf?(ctx: RunContext): string | null;
  /** Drives sessions and records; must not judge. */
  scenario(scn: Scenario): Promise<void>;
  /** Pure: decides the outcome from the record. */
  judge(steps: readonly StepRecord[], discovery: Discovery): Judgement;
  /** One line of evidence for the terminal table. */
  evidence?(j: Judgement, steps: readonly StepRecord[]): string;
}

export function defineCheck(def: CheckDefinition): CheckDefinition {
  return def;
}

/** Runs one check end to end. Never throws: failures to run become inconclusive results. */
export async function executeCheck(def: CheckDefinition, ctx: RunContext, profile: Profile | null, signal?: AbortSignal): Promise<CheckResult> {
  const started = performance.now();
  const expectation = profile?.expect[def.id] ?? null;
  const base = {
    id: def.id,
    title: def.title,
    severity: def.severity,
    expected: expectation?.outcome ?? null,
    expectedRef: expectation?.ref ?? null,
  };
  const skip = def.skipIf?.(ctx) ?? null;
  if (skip) {
    return { ...base, outcome: null, verdict: 'skipped', reason: skip, facts: {}, evidence: skip, advice: null, steps: [], durationMs: 0, statements: 0, cleanup: { ok: true, detail: 'nothing to clean' } };
  }
  const scn = new Scenario(ctx, signal);
  // Logins ahead of need (steering/spare-session.ts): made while the previous check ended.
  scn.useSpares();
  let runError: string | null = null;
  // Before: another run in the middle of a statement or transaction. During: any backend it
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
  // Asking about other runs touches none of the check's sessions: it goes while they close.
  const [, othersDuring] = await Promise.all([scn.closeAll(), scn.interrupted ? null : otherRunsActive(ctx, performance.now() - started)]);
  const others = Math.max(othersBefore ?? 0, othersDuring ?? 0);
  if (others > 0) scn.note('engine', OTHER_RUNS_TAG, `(${others} other pooltest run(s) active on this target during the check)`, { facts: { other_runs: others } });
  const judgement = scn.interrupted ? interruptedJudgement(def, scn.steps, ctx.discovery) : judgeRecord(def, scn.steps, ctx.discovery);
  if (runError && judgement.outcome === null) judgement.reason = `${runError}; ${judgement.reason}`;
  const verdict = judgement.skipped && judgement.outcome === null ? 'skipped' : verdictFor(judgement.outcome, base.expected);
  const durationMs = Math.round(performance.now() - started);
  // After an outage (a restarting pooler or server), the next check starts once the target
  // answers again (bounded), rather than failing fast while it is still down.
  if (!scn.interrupted && outageIn(scn.steps)) await untilAnswering(ctx, ctx.bounds.connectMs + ctx.bounds.stepMs);
  // Never interrupted: an interrupted check is exactly the one most likely to leave state.
  const missed = scn.steps.length === 0 ? { left: [], unreached: [] } : await tidy(ctx, [def.id], touchedBy(scn.steps), withSpares(new Scenario(ctx)));
  return {
    ...base,
    outcome: judgement.outcome,
    verdict,
    reason: judgement.reason,
    facts: judgement.facts,
    evidence: def.evidence?.(judgement, scn.steps) ?? judgement.reason,
    advice: judgement.outcome ? (def.advice[judgement.outcome] ?? null) : null,
    steps: scn.steps,
    durationMs,
    statements: scn.recorder.statements,
    cleanup: cleanupStatus(scn.steps, missed),
  };
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
 *   errors are no refusal);
 * - a landing missed A's backend without proof that the pooler kept it (judging/landing.ts: a
 *   candidate queued behind other clients' traffic, a pool that changed).
 * Pure, so tests can apply it to recorded logs.
 */
export function judgeRecord(def: Pick<CheckDefinition, 'judge'>, steps: readonly StepRecord[], discovery: Discovery): Judgement {
  let judgement: Judgement;
  try {
    judgement = def.judge(steps, discovery);
  } catch (err) {
    return { outcome: null, facts: {}, reason: `judge failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (judgement.outcome === null) return judgement;
  const others = numberOf(steps.find((s) => s.tag === OTHER_RUNS_TAG), 'other_runs') ?? 0;
  if (others > 0) {
    return {
      outcome: null,
      facts: { ...judgement.facts, unprovenOutcome: judgement.outcome, otherPooltestRuns: others },
      reason: `not conclusive: ${others} other pooltest run(s) worked on this target during the check, and their checks reset whole sessions (DISCARD ALL, RESET ALL) on shared backends; run one at a time for a conclusive answer (without that the record would read "${judgement.outcome}")`,
    };
  }
  const outage = outageIn(steps);
  if (outage) {
    return {
      outcome: null,
      facts: { ...judgement.facts, unprovenOutcome: judgement.outcome },
      reason: `not conclusive: the target was unavailable during the check (${outage.session} ${outage.tag}: ${outage.error?.code ? `${outage.error.code} ` : ''}${outage.error?.message}) (without that the record would read "${judgement.outcome}")`,
    };
  }
  const doubts = unprovenLandings(steps, discovery);
  if (doubts.length === 0) return judgement;
  return {
    outcome: null,
    facts: { ...judgement.facts, unprovenOutcome: judgement.outcome },
    reason: `not conclusive: ${doubts.join('; ')} (without that doubt the record would read "${judgement.outcome}")`,
  };
}

/** A scenario cut short by an interruption proves nothing: its record is incomplete by design. */
function interruptedJudgement(def: Pick<CheckDefinition, 'judge'>, steps: readonly StepRecord[], discovery: Discovery): Judgement {
  const partial = judgeRecord(def, steps, discovery);
  return { outcome: null, facts: { ...partial.facts, interrupted: true }, reason: 'interrupted: the run was cancelled while this check ran; its sessions were closed and the sweep cleans what they left' };
}

/**
 * Cleanup steps are tagged `*.cleanup`; any error in them is reported, and so is anything the
 * visits after the check found left behind (and removed).
 */
function cleanupStatus(steps: readonly StepRecord[], missed: Findings): CheckResult['cleanup'] {
  const failed = steps.filter((s) => s.tag.endsWith('cleanup') && (s.error || s.timedOut));
  const left = [
    ...(missed.left.length > 0 ? [`left behind, removed right after the check: ${missed.left.join('; ')}`] : []),
    ...(missed.unreached.length > 0 ? [`backend(s) ${missed.unreached.join(', ')} busy with other clients right after the check: left to the final sweep`] : []),
  ];
  if (failed.length === 0 && left.length === 0) return { ok: true, detail: `${steps.filter((s) => s.tag.endsWith('cleanup')).length} cleanup step(s) succeeded` };
  return { ok: false, detail: [...failed.map((s) => `${s.session} ${s.tag}: ${s.error?.message ?? 'timed out'}`), ...left].join('; ') };
}
