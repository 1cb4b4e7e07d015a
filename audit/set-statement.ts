/**
 * `SET` / `RESET` at statement level, and the mapping from a setting's name to the check that
 * observes it. `SET LOCAL` and `SET TRANSACTION` end with the transaction, so poolers cannot
 * carry them anywhere: they are not findings.
 */
import { text } from './ast-json.js';
import type { AuditCheckId, Hazard } from './audit-types.js';
import type { AstNode } from './sql-parser.js';

/**
 * Parameters PostgreSQL reports to the client (GUC_REPORT) and that PgBouncer, PgCat and
 * Odyssey replay when a client moves to another backend. Names as the parser gives them
 * (lower case: `SET TIME ZONE` becomes `timezone`).
 */
const TRACKED = new Set([
  'application_name',
  'client_encoding',
  'datestyle',
  'timezone',
  'intervalstyle',
  'standard_conforming_strings',
]);

/** Settings that only ever apply to the current transaction, whatever the SET says. */
const TRANSACTION_ONLY = new Set(['transaction_isolation', 'transaction_read_only', 'transaction_deferrable']);

/** The check a session-level change of setting `name` depends on. */
export function checkForSetting(name: string): AuditCheckId {
  const lower = name.toLowerCase();
  if (lower === 'role' || lower === 'session_authorization') return 'session/role-leak';
  if (lower === 'search_path') return 'session/search-path-leak';
  // Only extensions and applications use dotted names: `app.tenant_id`, `myapp.user`.
  if (lower.includes('.')) return 'session/custom-guc-leak';
  if (TRACKED.has(lower)) return 'session/tracked-parameter';
  return 'session/set-leak';
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
  if (kind === 'VAR_RESET_ALL') return { check: 'session/set-leak', what: 'RESET ALL', certain: true, cleanup: true };
  if (kind === 'VAR_SET_MULTI') {
    // SET TRANSACTION ... is transaction-scoped; SET SESSION CHARACTERISTICS sets defaults.
    if (name === 'TRANSACTION') return null;
    return { check: 'session/set-leak', what: `SET ${name}`, certain: true };
  }
  if (TRANSACTION_ONLY.has(name.toLowerCase())) return null;
  if (kind === 'VAR_RESET')
    return { check: checkForSetting(name), what: `RESET ${displayName(name)}`, certain: true, cleanup: true };
  if (kind === 'VAR_SET_DEFAULT')
    return { check: checkForSetting(name), what: `SET ${displayName(name)} TO DEFAULT`, certain: true, cleanup: true };
  if (name === 'role' && isNone(stmt))
    return { check: 'session/role-leak', what: 'SET ROLE NONE', certain: true, cleanup: true };
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
