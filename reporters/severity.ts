/**
 * Reports list checks by how bad the hazard is: security first, then correctness, then
 * availability. Within a group, checks keep the order they have in the report (catalogue order).
 */
import type { Severity } from '../engine/types.js';

/** The order groups appear in, worst first. */
export const SEVERITY_ORDER: readonly Severity[] = ['security', 'correctness', 'availability'];

/** The non-empty severity groups of `items` (check results or diff entries), worst first. */
export function groupBySeverity<T extends { severity: Severity }>(
  items: readonly T[],
): Array<{ severity: Severity; checks: T[] }> {
  const known = SEVERITY_ORDER.map((severity) => ({ severity, checks: items.filter((c) => c.severity === severity) }));
  // A severity this version does not know (a newer pooltest's, or a hand-edited report) gets a
  // group of its own after the known ones: a row is never dropped from a table that counts it.
  const others = [...new Set(items.map((c) => String(c.severity)))]
    .filter((s) => !(SEVERITY_ORDER as readonly string[]).includes(s))
    .map((s) => ({ severity: s as Severity, checks: items.filter((c) => String(c.severity) === s) }));
  return [...known, ...others].filter((g) => g.checks.length > 0);
}

/** `items` sorted by severity group, stable within a group. */
export function bySeverity<T extends { severity: Severity }>(items: readonly T[]): T[] {
  return groupBySeverity(items).flatMap((g) => g.checks);
}
