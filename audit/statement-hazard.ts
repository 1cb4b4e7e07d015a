/**
 * The hazard of a statement kind the classifier recognised: its check is the one that claims
 * the kind (engine/record/audit-claims.ts), and a kind of the cleanup half is flagged as such.
 */
import { isCleanupStatement, type StatementKind } from '../engine/record/audit-claims.js';
import { CLAIMS } from './audit-knowledge.js';
import type { Hazard } from './audit-types.js';

/** A certain hazard for `kind`, shown as `what` (`LISTEN jobs`, `DEALLOCATE ALL`). */
export function statementHazard(kind: StatementKind, what: string): Hazard {
  const hazard: Hazard = { check: CLAIMS.checkOfStatement(kind), what, certain: true };
  if (isCleanupStatement(kind)) hazard.cleanup = true;
  return hazard;
}
