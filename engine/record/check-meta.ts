/**
 * What a check is, as data its judge and the reports read: its labels, their meanings and
 * advice, its needs and the landings its conclusion rests on, and its pure judge. The check's
 * scenario, which drives sessions, is added by CheckDefinition (engine/execute/check.ts), so
 * that judging can read a check without importing steering.
 */
import type { AuditClaims } from './audit-claims.js';
import type { Discovery } from './discovery-facts.js';
import type { Judgement, Severity } from './judgement.js';
import type { StepRecord } from './step-record.js';

/** What one outcome label means for its check, and the fix (whether it breaks: suites/outcome-breaks.ts). */
export interface OutcomeInfo {
  /** The label's meaning for this check, one sentence (README and INTERPRETING derive from it). */
  means: string;
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
 * A scenario several checks drive (engine/steering/), as data: the landings a conclusion drawn
 * from its record rests on. A check names the one it drives in `uses` and inherits them as its
 * `restsOn`, so the landing is stated once, beside the scenario that records it.
 */
export interface SharedScenario {
  /** How docs and messages name it (`the state scenario`). */
  name: string;
  /** The landings its record shows, which a check that uses it rests on. */
  restsOn: readonly LandingNeed[];
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
   * Per setting of `perParameter` (lower-case), what to do where that setting breaks: the audit
   * and watch give it instead of the check's advice for a finding about that setting.
   */
  parameterAdvice?: Readonly<Record<string, string>>;
  /**
   * The SQL this check is the one to ask about: statement kinds, settings and built-in
   * functions, each from the vocabulary of audit-claims.ts. The catalogue refuses an item
   * claimed by two checks or by none.
   */
  claims: AuditClaims;
}

/**
 * One check as data, with its judge: everything pooltest says about the check (its labels,
 * their meanings, advice, references, needs) is declared here and derived elsewhere.
 * `Id` and `Label` keep the literal id and labels so the catalogue's types are exact.
 */
export interface CheckMeta<Id extends string = string, Label extends string = string> {
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
  /**
   * The shared scenario the check drives (`STATE_SCENARIO`, `LAND_ON_A`: record/tags.ts), if
   * any: {@link defineCheck} fills `restsOn` from it.
   */
  uses?: SharedScenario;
  /**
   * The landings the conclusion rests on; the engine vetoes an unproven one. Inherited from
   * `uses`; a check states it only to rest on other landings than its shared scenario's.
   */
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
  /**
   * Why nothing this check sends can leave state on a server connection (it only reads, and
   * any setting it makes is scoped to its transaction), where that is so. The engine then makes
   * no tidy-up visits after it: they could find nothing of it, and after a crowd of clients
   * they cost a round of logins. The final sweep still visits every backend the run touched.
   * test/engine/leaves-no-state.test.ts runs each such check and reads every statement it sent
   * with the audit's classifier.
   */
  leavesNoState?: string;
  /**
   * Pure: decides the outcome from the record. It returns one of this check's own labels (the
   * keys of `outcomes`), unknown, or skipped: a label the check does not declare does not
   * compile. `NoInfer` keeps `outcomes` the one place the labels are read from, so a judge
   * cannot widen them.
   */
  judge(steps: readonly StepRecord[], discovery: Discovery): Judgement<NoInfer<Label>>;
  /** One line of evidence for the terminal table. */
  evidence?(j: Judgement<NoInfer<Label>>, steps: readonly StepRecord[]): string;
}

/** The advice a check gives for `outcome`, or null. */
export function adviceFor(def: Pick<CheckMeta, 'outcomes'>, outcome: string | null): string | null {
  if (outcome === null || !Object.hasOwn(def.outcomes, outcome)) return null;
  return (def.outcomes as Record<string, OutcomeInfo>)[outcome]!.advice ?? null;
}
