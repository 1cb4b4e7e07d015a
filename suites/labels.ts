/**
 * The public contract of check ids and outcome labels (README "What the outcomes mean",
 * INTERPRETING.md 4b), as data derived from the check files: every check declares its labels
 * (with their meanings) in its own `outcomes`, and this module only collects them. Profiles are validated against it; reporters, the audit and the
 * docs read it instead of restating the labels.
 *
 * Adding a check or a label is a contract change made in the check's own file. Removing or
 * renaming one breaks vendors' CI and stored reports.
 */
import type { OutcomeInfo } from '../engine/execute/check.js';
import { STATE_LABELS } from '../engine/judging/state-outcomes.js';
import { CATALOGUE, type CatalogueCheck } from './catalogue.js';

export { STATE_LABELS };

/** A check id of the contract, e.g. `session/set-leak`. */
export type CheckId = CatalogueCheck['id'];

/** The labels one check may report, e.g. `OutcomeOf<'cancel/routing'>` is `routed | misrouted | ignored`. */
export type OutcomeOf<C extends CheckId> = keyof Extract<CatalogueCheck, { id: C }>['outcomes'] & string;

/** Every check id with its labels, in catalogue order. */
export const CHECK_LABELS: { readonly [C in CheckId]: readonly OutcomeOf<C>[] } = Object.fromEntries(
  CATALOGUE.map((c) => [c.id, Object.keys(c.outcomes)]),
) as unknown as { readonly [C in CheckId]: readonly OutcomeOf<C>[] };

/** Every check id of the contract, in catalogue order. */
export const CHECK_IDS = CATALOGUE.map((c) => c.id) as CheckId[];

export function isCheckId(id: string): id is CheckId {
  return Object.hasOwn(CHECK_LABELS, id);
}

/** The labels `id` may report, or null when `id` is not a check of the contract. */
export function labelsOf(id: string): readonly string[] | null {
  return isCheckId(id) ? CHECK_LABELS[id] : null;
}

/** Whether `outcome` is one of the labels check `id` may report. */
export function isLabelOf(id: string, outcome: string): boolean {
  return labelsOf(id)?.includes(outcome) ?? false;
}

/** What `outcome` means for check `id`, or null when it is not one of its labels. */
export function outcomeInfo(id: string, outcome: string): OutcomeInfo | null {
  const check = CATALOGUE.find((c) => c.id === id);
  if (!check || !Object.hasOwn(check.outcomes, outcome)) return null;
  return (check.outcomes as Record<string, OutcomeInfo>)[outcome]!;
}

/**
 * The settings check `id` gives an outcome of its own (lower-case), or null when it judges as
 * one: see `AuditHint.perParameter`.
 */
export function perParameterOf(id: string): readonly string[] | null {
  const check = CATALOGUE.find((c) => c.id === id) as { audit?: { perParameter?: readonly string[] } } | undefined;
  return check?.audit?.perParameter ?? null;
}
