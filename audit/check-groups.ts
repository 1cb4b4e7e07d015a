/**
 * Findings grouped by check in the catalogue's priority order, as both the terminal and the
 * Markdown views present them.
 */
import { AUDIT_CHECKS, type AuditCheckInfo } from './audit-checks.js';
import type { AuditFinding, AuditReport } from './audit-types.js';

/** One check's findings, plus how many further occurrences were counted but not kept. */
export interface CheckGroup {
  info: AuditCheckInfo;
  findings: AuditFinding[];
  overflow: number;
}

/** The checks that have findings (or overflow), most important first. */
export function groupByCheck(report: AuditReport): CheckGroup[] {
  const groups: CheckGroup[] = [];
  for (const info of AUDIT_CHECKS) {
    const findings = report.findings.filter((f) => f.check === info.id);
    const overflow = report.overflow[info.id] ?? 0;
    if (findings.length > 0 || overflow > 0) groups.push({ info, findings, overflow });
  }
  return groups;
}
