/**
 * Whether an observed outcome label means the application's statement breaks. The labels are
 * the public vocabulary of the checks (DESIGN.md, "Checks and outcome labels").
 */
import type { Breaks } from './audit-types.js';

/** State escapes its client, vanishes, or the statement is refused: the app sees a difference. */
const BREAKING = new Set(['leaked', 'lost', 'shared', 'released', 'misrouted', 'dropped', 'failed', 'rejected']);

/** The statement keeps the meaning it has on a direct connection. */
const FINE = new Set(['session', 'tracked', 'pinned', 'exclusive', 'delivered', 'works']);

/** Maps an outcome label (null when the check was inconclusive) to breaks / fine / unknown. */
export function outcomeBreaks(outcome: string | null): Breaks {
  if (outcome === null) return 'unknown';
  if (BREAKING.has(outcome)) return true;
  if (FINE.has(outcome)) return false;
  return 'unknown';
}
