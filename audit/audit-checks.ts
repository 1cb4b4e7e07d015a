/**
 * What the audit knows per check, taken from the catalogue instead of restated: the kind of
 * statement and what pooling does to it (each check's `audit` hint), the fix (the check's own
 * advice), and what transaction pooling typically does when no pooltest report says otherwise
 * (the `pgbouncer-transaction` profile, the behaviour the fixtures observe). The typical outcome
 * is used only when the user gave neither `--report` nor `--target`, and labelled as such.
 */
import type { AuditHint, OutcomeInfo } from '../engine/execute/check.js';
import { findProfile } from '../profiles/index.js';
import { CATALOGUE, type CatalogueCheck } from '../suites/catalogue.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import type { AuditCheckId } from './audit-types.js';

/** Static knowledge about one check id, as the audit uses it. */
export interface AuditCheckInfo {
  id: AuditCheckId;
  title: string;
  advice: string;
  /** PgBouncer transaction mode's usual outcome label. */
  typicalOutcome: string;
  /** Shown when one label does not tell the whole story. */
  typicalNote: string;
  /** Per setting, the advice where that setting breaks (the check's `audit.parameterAdvice`). */
  parameterAdvice: Readonly<Record<string, string>>;
}

/** The profile whose expectations stand for "typical transaction pooling". */
export const TYPICAL_PROFILE = 'pgbouncer-transaction';

type AuditedCheck = CatalogueCheck & { audit: AuditHint };

function isAudited(c: CatalogueCheck): c is AuditedCheck {
  return (c as { audit?: AuditHint }).audit !== undefined;
}

/**
 * The fix to suggest: the check's advice for the typical outcome, or else for its first label
 * that breaks an application (a pooler that replays a parameter still deserves the advice of
 * the pooler that leaks it).
 */
function adviceOf(c: AuditedCheck, typical: string): string {
  const outcomes = c.outcomes as Record<string, OutcomeInfo>;
  const own = outcomes[typical]?.advice;
  if (own) return own;
  const breaking = Object.entries(outcomes).find(([l, o]) => outcomeBreaks(l) === true && o.advice)?.[1];
  return breaking?.advice ?? 'See INTERPRETING.md for this check.';
}

/**
 * In priority order (each check's `audit.priority`): when a statement has several hazards and
 * none comes from the statement's own kind, the first in this list becomes the finding.
 */
export const AUDIT_CHECKS: readonly AuditCheckInfo[] = (() => {
  const typical = findProfile(TYPICAL_PROFILE).expect;
  return CATALOGUE.filter(isAudited)
    .sort((a, b) => a.audit.priority - b.audit.priority)
    .map((c) => {
      const outcome = typical[c.id]?.outcome;
      if (!outcome) throw new Error(`${c.id} has an audit hint but profile ${TYPICAL_PROFILE} expects nothing of it`);
      return {
        id: c.id,
        title: c.audit.statement,
        advice: adviceOf(c, outcome),
        typicalOutcome: outcome,
        typicalNote: c.audit.consequence,
        parameterAdvice: c.audit.parameterAdvice ?? {},
      };
    });
})();

const BY_ID = new Map<string, AuditCheckInfo>(AUDIT_CHECKS.map((c) => [c.id, c]));

/** Knowledge about one check id; every {@link AuditCheckId} has an entry. */
export function auditCheck(id: AuditCheckId): AuditCheckInfo {
  const info = BY_ID.get(id);
  if (info === undefined) throw new Error(`no audit knowledge for ${id}`);
  return info;
}

/**
 * A setting's own advice for a finding about it, where it breaks and the check has advice for
 * it (default_transaction_read_only in session/tracked-parameter); undefined otherwise.
 */
export function settingAdvice(
  info: AuditCheckInfo,
  parameter: string | null,
  breaks: boolean | 'unknown',
): string | undefined {
  return parameter !== null && breaks !== false ? info.parameterAdvice[parameter] : undefined;
}

/** Lower is more important. */
export function checkPriority(id: AuditCheckId): number {
  return AUDIT_CHECKS.findIndex((c) => c.id === id);
}
