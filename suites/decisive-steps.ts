/**
 * Each check's declared decisive step (`decisive` in its file), by check id, for the sequence
 * diagrams; checks that declare none are highlighted at their crossing.
 */
import type { DecisiveStep } from '../engine/execute/check.js';
import { CATALOGUE } from './catalogue.js';

const BY_ID: ReadonlyMap<string, readonly DecisiveStep[]> = new Map(
  CATALOGUE.flatMap((c) => ('decisive' in c && c.decisive ? [[c.id, c.decisive] as const] : [])),
);

/** What `id` declares as its decisive step, first match first (none for unknown ids). */
export function decisiveSteps(id: string | undefined): readonly DecisiveStep[] {
  return (id && BY_ID.get(id)) || [];
}
