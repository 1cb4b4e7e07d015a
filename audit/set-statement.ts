/**
 * `SET` / `RESET` at statement level. `SET LOCAL` and `SET TRANSACTION` end with the
 * transaction, so poolers cannot carry them anywhere: they are not findings. Which check
 * observes a setting is the checks' own claim (their `audit.claims.settings`).
 */
import { CLAIMS } from './audit-knowledge.js';
import { text } from '../common/ast-json.js';
import type { AuditCheckId, Hazard } from './audit-types.js';
import { statementHazard } from './statement-hazard.js';
import type { AstNode } from '../common/sql-parser.js';

/** Settings that only ever apply to the current transaction, whatever the SET says. */
const TRANSACTION_ONLY = new Set(['transaction_isolation', 'transaction_read_only', 'transaction_deferrable']);

/**
 * The check a session-level change of setting `name` depends on: the check that claims the
 * name, else the one claiming dotted names, else the catch-all (see engine/record/audit-claims.ts).
 * Null stands for a setting the statement does not name.
 */
export function checkForSetting(name: string | null): AuditCheckId {
  return CLAIMS.checkOfSetting(name);
}

/**
 * The hazard of a top-level `VariableSetStmt`, or null when it ends with the transaction.
 * `RESET x`, `RESET ALL`, `SET x TO DEFAULT` and `SET ROLE NONE` put the session back: they are
 * the cleanup half of a `SET` (flagged `cleanup`), not a break of their own.
 */
export function setStatementHazard(stmt: AstNode): Hazard | null {
  if (stmt['is_local'] === true) return null;
  const kind = text(stmt, 'kind');
  const name = text(stmt, 'name') ?? '';
  if (kind === 'VAR_RESET_ALL') return statementHazard('RESET ALL', 'RESET ALL');
  if (kind === 'VAR_SET_MULTI') {
    // SET TRANSACTION ... is transaction-scoped; SET SESSION CHARACTERISTICS sets the
    // default_transaction_* settings without naming them.
    if (name === 'TRANSACTION') return null;
    return { check: checkForSetting(null), what: `SET ${name}`, certain: true };
  }
  if (TRANSACTION_ONLY.has(name.toLowerCase())) return null;
  if (kind === 'VAR_RESET')
    return { check: checkForSetting(name), what: `RESET ${displayName(name)}`, certain: true, cleanup: true };
  if (kind === 'VAR_SET_DEFAULT')
    return { check: checkForSetting(name), what: `SET ${displayName(name)} TO DEFAULT`, certain: true, cleanup: true };
  if (name === 'role' && isNone(stmt)) return statementHazard('SET ROLE NONE', 'SET ROLE NONE');
  return { check: checkForSetting(name), what: `SET ${displayName(name)}`, certain: true };
}

/** `SET ROLE NONE`: the one value that undoes a `SET ROLE` (it arrives as the string 'none'). */
function isNone(stmt: AstNode): boolean {
  const args = stmt['args'];
  if (!Array.isArray(args) || args.length !== 1) return false;
  const value = (args[0] as { A_Const?: { sval?: { sval?: unknown } } }).A_Const?.sval?.sval;
  return typeof value === 'string' && value.toLowerCase() === 'none';
}

function displayName(name: string): string {
  if (name === 'session_authorization') return 'SESSION AUTHORIZATION';
  if (name === 'role') return 'ROLE';
  return name;
}
