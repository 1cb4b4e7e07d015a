/**
 * Groups dependencies into findings: the same pair of statements (creating text, using text)
 * seen on many connections, as a test suite produces, is one finding with a count. Memory is
 * bounded: past {@link MAX_FINDINGS} distinct pairs, further ones are only counted per check.
 */
import { AUDIT_CHECKS, auditCheck } from '../audit/audit-checks.js';
import { joinCheck, type PoolerBehaviour } from '../audit/pooler-behaviour.js';
import type { AuditCheckId } from '../audit/audit-types.js';
import { adviceFor } from '../engine/check.js';
import { CATALOGUE } from '../suites/catalogue.js';
import type { Dependency } from './session-state.js';
import type { WatchCheckId, WatchConnection, WatchFinding } from './watch-types.js';

export const MAX_FINDINGS = 1_000;
/** Distinct connections remembered per finding (the count goes on past it). */
const MAX_CONNECTION_IDS = 1_000;

interface Tally {
  dep: Dependency;
  connection: WatchConnection;
  count: number;
  connectionIds: Set<number>;
}

/** Priority order: the audit's (each check's `audit.priority`). */
const ORDER: readonly WatchCheckId[] = AUDIT_CHECKS.map((c) => c.id);

export class FindingsCollector {
  private readonly tallies = new Map<string, Tally>();
  readonly overflow: Record<string, number> = {};

  add(dep: Dependency, connection: WatchConnection): void {
    const key = `${dep.check}\0${dep.created.sql}\0${dep.used.sql}\0${dep.use}`;
    const tally = this.tallies.get(key);
    if (tally !== undefined) {
      tally.count++;
      if (tally.connectionIds.size < MAX_CONNECTION_IDS) tally.connectionIds.add(connection.id);
      return;
    }
    if (this.tallies.size >= MAX_FINDINGS) {
      this.overflow[dep.check] = (this.overflow[dep.check] ?? 0) + 1;
      return;
    }
    // A copy: the connection's application_name may still change.
    this.tallies.set(key, { dep, connection: { ...connection }, count: 1, connectionIds: new Set([connection.id]) });
  }

  /** The check ids that have findings (or overflow), for the join with the pooler. */
  checks(): WatchCheckId[] {
    const ids = new Set<WatchCheckId>([
      ...[...this.tallies.values()].map((t) => t.dep.check),
      ...(Object.keys(this.overflow) as WatchCheckId[]),
    ]);
    return ORDER.filter((id) => ids.has(id));
  }

  /** Findings joined with what the pooler does, most important check first. */
  findings(behaviour: PoolerBehaviour): WatchFinding[] {
    const out = [...this.tallies.values()].map((t) => toFinding(t, behaviour));
    return out.sort((a, b) => ORDER.indexOf(a.check) - ORDER.indexOf(b.check) || b.count - a.count);
  }
}

function toFinding(t: Tally, behaviour: PoolerBehaviour): WatchFinding {
  // A setting judged on its own (TimeZone in session/tracked-parameter) gets its own outcome.
  const { outcome, breaks, parameter } = joinCheck(behaviour, t.dep.check as AuditCheckId, t.dep.setting);
  const known = checkText(t.dep.check, outcome);
  return {
    check: t.dep.check,
    title: known.title,
    severity: known.severity,
    state: t.dep.state,
    created: t.dep.created,
    used: t.dep.used,
    use: t.dep.use,
    certain: t.dep.certain,
    connection: t.connection,
    count: t.count,
    connections: t.connectionIds.size,
    outcome,
    parameter,
    basis: behaviour.basis,
    breaks,
    advice: known.advice,
  };
}

/**
 * Title, severity and advice: the check definition's advice for the joined outcome when it has
 * one (suites/), else the audit's general advice for the check.
 */
export function checkText(
  id: WatchCheckId,
  outcome: string | null,
): { title: string; severity: string; advice: string } {
  const def = CATALOGUE.find((c) => c.id === id);
  const specific = def ? adviceFor(def, outcome) : null;
  const info = auditCheck(id);
  return { title: info.title, severity: def?.severity ?? 'correctness', advice: specific ?? info.advice };
}
