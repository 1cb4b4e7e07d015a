/**
 * The public surface of `pooltest audit` for library users: the audit itself, the command the
 * CLI dispatches to, and the report's types.
 */
export { audit, DEFAULT_MAX_STATEMENT_BYTES, DEFAULT_TIMEOUT_MS, type AuditOptions } from './audit.js';
export { auditCommand, exitCode, type AuditIo } from './audit-command.js';
export { AUDIT_CHECKS, type AuditCheckInfo } from './audit-checks.js';
export { outcomeBreaks } from '../suites/outcome-breaks.js';
export {
  AUDIT_SCHEMA_VERSION,
  type AuditCheckId,
  type AuditFinding,
  type AuditReport,
  type BehaviourBasis,
  type Breaks,
  type InputSummary,
  type PoolerSummary,
  type UnparsedSample,
  type UnparsedSummary,
} from './audit-types.js';
