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
  return SEVERITY_ORDER.map((severity) => ({ severity, checks: items.filter((c) => c.severity === severity) })).filter(
    (g) => g.checks.length > 0,
  );
}

/** `items` sorted by severity group, stable within a group. */
export function bySeverity<T extends { severity: Severity }>(items: readonly T[]): T[] {
  return groupBySeverity(items).flatMap((g) => g.checks);
}
