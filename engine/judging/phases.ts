/**
 * Checks that try one hazard in several forms (`SET` and `set_config`; `DISCARD ALL` and
 * `RESET ALL`) run the scenario once per form, as a phase whose tags carry a `<phase>:` prefix,
 * and report the worst form: a developer needs to know that one of the two leaks, not that the
 * other one happened to behave.
 */
import type { Facts, Judgement, StepRecord } from '../types.js';

/** The steps of one phase, under their plain tags (`set:A.create` becomes `A.create`). */
export function phaseSteps(steps: readonly StepRecord[], phase: string): StepRecord[] {
  const prefix = `${phase}:`;
  return steps.filter((s) => s.tag.startsWith(prefix)).map((s) => ({ ...s, tag: s.tag.slice(prefix.length) }));
}

export interface PhaseJudgement<Label extends string = string> {
  /** Short name for facts and reasons, e.g. `set_config`. */
  phase: string;
  judgement: Judgement<Label>;
}

/**
 * Combines phases, `worstFirst` ranking the labels. The result is the worst outcome seen;
 * while a phase is inconclusive it could hide something worse, so the result is inconclusive
 * too, unless what was seen is already the worst label there is. Facts are kept per phase
 * (`set.otherSawState`), with each phase's own outcome under `<phase>.outcome`. Generic in the
 * labels: the result is one of the phases' own labels, so it is one of the check's.
 */
export function worstOf<Label extends string>(
  phases: readonly PhaseJudgement<Label>[],
  worstFirst: readonly NoInfer<Label>[],
): Judgement<Label> {
  const facts: Facts = {};
  for (const { phase, judgement } of phases) {
    facts[`${phase}.outcome`] = judgement.outcome;
    for (const [k, v] of Object.entries(judgement.facts)) facts[`${phase}.${k}`] = v;
  }
  const summary = phases
    .map((p) => `${p.phase}: ${p.judgement.outcome ?? 'inconclusive'} (${p.judgement.reason})`)
    .join('; ');
  if (phases.length > 0 && phases.every((p) => p.judgement.skipped))
    return { outcome: null, facts, reason: summary, skipped: true };
  const rank = (o: Label | null): number =>
    o === null ? Infinity : worstFirst.indexOf(o) === -1 ? worstFirst.length : worstFirst.indexOf(o);
  const known = phases
    .filter((p) => p.judgement.outcome !== null)
    .sort((a, b) => rank(a.judgement.outcome) - rank(b.judgement.outcome));
  const worst = known[0];
  const unknown = phases.filter((p) => p.judgement.outcome === null);
  if (!worst || (unknown.length > 0 && rank(worst.judgement.outcome) > 0))
    return { outcome: null, facts, reason: summary };
  return worst.judgement.outcome === null
    ? { outcome: null, facts, reason: summary }
    : { outcome: worst.judgement.outcome, facts, reason: summary };
}
