/**
 * What a check is: metadata, a scenario and a judge, declared with {@link defineCheck}. How
 * one is run is engine/execute/execute.ts (`executeCheck`, no Vitest needed; `checkTest` in
 * runner/vitest-check.ts wires it into a test); how its record is judged,
 * engine/judging/judge-record.ts and the vetoes in engine/judging/vetoes.ts.
 */
import type { Scenario, RunContext } from '../steering/scenario.js';
import type { CheckMeta } from '../record/check-meta.js';
import type { KnownWedge } from './known-wedge.js';

export type {
  AuditHint,
  CheckFlag,
  DecisiveStep,
  LandingNeed,
  OutcomeInfo,
  Requirement,
  SharedScenario,
} from '../record/check-meta.js';
export { adviceFor } from '../record/check-meta.js';

/**
 * One check, as data plus two functions: its metadata and pure judge ({@link CheckMeta}, which
 * is all judging reads), the scenario that drives sessions and records, and what may skip it.
 * `Id` and `Label` keep the literal id and labels so the catalogue's types are exact.
 */
export interface CheckDefinition<Id extends string = string, Label extends string = string> extends CheckMeta<
  Id,
  Label
> {
  /** Why this check cannot run against this target (it is then `skipped`), or null. */
  skipIf?(ctx: RunContext): string | null;
  /** Poolers this check is known to leave unusable: skipped there unless `--run-wedging` (known-wedge.ts). */
  wedges?: readonly KnownWedge[];
  /** Drives sessions and records; must not judge. */
  scenario(scn: Scenario): Promise<void>;
}

/**
 * Declares a check, keeping its literal id and labels for the catalogue's types, with the
 * landings of the shared scenario it `uses` as its `restsOn` unless it states its own.
 */
export function defineCheck<const Id extends string, const Label extends string>(
  def: CheckDefinition<Id, Label>,
): CheckDefinition<Id, Label> {
  if (def.restsOn !== undefined || def.uses === undefined) return def;
  return { ...def, restsOn: def.uses.restsOn };
}

/** Why the run context does not meet the check's declared needs, or null. */
export function unmetRequirement(def: Pick<CheckDefinition, 'requires'>, ctx: RunContext): string | null {
  if (def.requires?.includes('fixture') && !ctx.fixture) {
    return 'fixtures only: it floods or damages the pool, which would starve the other clients of a shared server';
  }
  return null;
}
