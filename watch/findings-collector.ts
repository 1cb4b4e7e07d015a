/**
 * Groups dependencies into findings: one piece of session state left by the same statement
 * (check, state, creating text) is one finding, however many connections left it and whatever
 * each one used it for first, with a count and the connections listed. The use shown is the
 * first seen, an explicit one replacing an implicit one, a seen one replacing a `would-break`.
 * Memory is bounded: past {@link MAX_FINDINGS} distinct states, further ones are only counted.
 */
import { AUDIT_CHECKS, auditCheck, settingAdvice } from '../audit/audit-checks.js';
import { joinCheck, type PoolerBehaviour } from '../audit/pooler-behaviour.js';
import type { AuditCheckId, Breaks } from '../audit/audit-types.js';
import { adviceFor } from '../engine/execute/check.js';
import { CATALOGUE } from '../suites/catalogue.js';
import type { Dependency } from './session-state.js';
import type { WatchCheckId, WatchConnection, WatchFinding } from './watch-types.js';

export const MAX_FINDINGS = 1_000;
/** Distinct connections remembered per finding (the count goes on past it). */
const MAX_CONNECTION_IDS = 1_000;
/** Connection ids listed in a finding. */
const LISTED_CONNECTION_IDS = 100;

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
    const key = `${dep.check}\0${dep.state}\0${dep.created.sql}`;
    const tally = this.tallies.get(key);
    if (tally !== undefined) {
      tally.count++;
      if (tally.connectionIds.size < MAX_CONNECTION_IDS) tally.connectionIds.add(connection.id);
      if (rank(dep) > rank(tally.dep)) tally.dep = { ...dep, created: tally.dep.created };
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

/** Which use a finding shows: explicit over implicit over none (a seen use over would-break). */
function rank(dep: Dependency): number {
  return dep.use === 'explicit' ? 2 : dep.use === 'implicit' ? 1 : 0;
}

/** How each kind of state breaks through a transaction pooler, said once for every finding. */
const HOW: Readonly<Record<Dependency['kind'], string>> = {
  guc: 'the setting stays on the server connection: the next transaction may run elsewhere without it, and another client gets it',
  prepared:
    'the statement exists only on the server connection it was prepared on: names shared across clients collide there (42P05, already exists), and a later use elsewhere fails (26000, does not exist)',
  cursor:
    'the cursor stays on the server connection: a FETCH in a later transaction may run where it does not exist (34000)',
  temp: 'the temporary relation stays on the server connection: a later transaction may run where it does not exist (42P01), and another client sees it',
  listen:
    'the channel goes deaf: the LISTEN stays on a server connection the client no longer holds, so its notifications reach whichever client has that connection, or nobody',
  lock: 'the lock stays on the server connection: another client there also "holds" it, and the unlock elsewhere fails',
  sequence:
    "currval()/lastval() read the session's value on whichever server connection runs them: another client's, or none (55000)",
};

function toFinding(t: Tally, behaviour: PoolerBehaviour): WatchFinding {
  // A setting judged on its own (TimeZone in session/tracked-parameter) gets its own outcome.
  const { outcome, breaks, parameter } = joinCheck(behaviour, t.dep.check as AuditCheckId, t.dep.setting);
  const known = checkText(t.dep.check, outcome, parameter, breaks);
  return {
    check: t.dep.check,
    title: known.title,
    severity: known.severity,
    state: t.dep.state,
    created: t.dep.created,
    used: t.dep.used,
    use: t.dep.use,
    evidence: t.dep.used !== null ? 'seen' : 'would-break',
    how: HOW[t.dep.kind],
    certain: t.dep.certain,
    connection: t.connection,
    count: t.count,
    connections: t.connectionIds.size,
    connectionIds: [...t.connectionIds].slice(0, LISTED_CONNECTION_IDS),
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
  parameter: string | null = null,
  breaks: Breaks = 'unknown',
): { title: string; severity: string; advice: string } {
  const def = CATALOGUE.find((c) => c.id === id);
  const info = auditCheck(id);
  // A setting with advice of its own (default_transaction_read_only) keeps it where it breaks.
  const own = settingAdvice(info, parameter, breaks);
  const specific = def ? adviceFor(def, outcome) : null;
  return { title: info.title, severity: def?.severity ?? 'correctness', advice: own ?? specific ?? info.advice };
}
