/**
 * What a check is (metadata, scenario, judge) and how one is executed: drive the scenario,
 * always clean up, judge the record, compare with the profile. `executeCheck` needs no Vitest;
 * `checkTest` in vitest-check.ts wires it into a test.
 */
import { isPooltestError } from './errors.js';
import { Scenario, type RunContext } from './steering/scenario.js';
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
export async function executeCheck(def: CheckDefinition, ctx: RunContext, profile: Profile | null): Promise<CheckResult> {
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
  const scn = new Scenario(ctx);
  let runError: string | null = null;
  try {
    await def.scenario(scn);
  } catch (err) {
    runError = isPooltestError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  } finally {
    await scn.closeAll();
  }
  let judgement: Judgement;
  try {
    judgement = def.judge(scn.steps, ctx.discovery);
  } catch (err) {
    judgement = { outcome: null, facts: {}, reason: `judge failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (runError && judgement.outcome === null) judgement.reason = `${runError}; ${judgement.reason}`;
  const verdict = verdictFor(judgement.outcome, base.expected);
  return {
    ...base,
    outcome: judgement.outcome,
    verdict,
    reason: judgement.reason,
    facts: judgement.facts,
    evidence: def.evidence?.(judgement, scn.steps) ?? judgement.reason,
    advice: judgement.outcome ? (def.advice[judgement.outcome] ?? null) : null,
    steps: scn.steps,
    durationMs: Math.round(performance.now() - started),
    statements: scn.recorder.statements,
    cleanup: cleanupStatus(scn.steps),
  };
}

/** Cleanup steps are tagged `*.cleanup`; any error in them is reported. */
function cleanupStatus(steps: readonly StepRecord[]): CheckResult['cleanup'] {
  const failed = steps.filter((s) => s.tag.endsWith('cleanup') && (s.error || s.timedOut));
  if (failed.length === 0) return { ok: true, detail: `${steps.filter((s) => s.tag.endsWith('cleanup')).length} cleanup step(s) succeeded` };
  return { ok: false, detail: failed.map((s) => `${s.session} ${s.tag}: ${s.error?.message ?? 'timed out'}`).join('; ') };
}
