/**
 * Stale traces of dead pooltest runs. A pooler that loses a client inside a transaction can
 * leave that server connection `idle in transaction` indefinitely, still carrying the dead
 * run's application_name (`pooltest-<run>`). Such a backend is nobody's traffic: it must not
 * count as another run at work (that would make every check of a later run inconclusive), nor
 * as a busy backend of the pool discovery counts (that doubled a pool of 2 to 4, seen through a
 * second pooler in front of the same Postgres). It is reported once, as a finding about the
 * server, with its pid and age.
 *
 * "Stale" is read from the server's clock: another run's backend that has not changed state
 * for longer than {@link staleAfterMs}. A live run's backend changes state with every
 * statement; its holders sit still for one step bound at most.
 */
import type { Session } from '../session/session.js';

/** No state change for this long (ms) makes another run's backend stale: three step bounds, at least 3 s. */
export function staleAfterMs(stepMs: number): number {
  return Math.max(3_000, 3 * stepMs);
}

/**
 * SQL condition: a pg_stat_activity row is another pooltest run's, inside a transaction, and
 * unchanged for too long. An idle pooled server connection that last served another run keeps
 * its name too, but is no trace: the pooler simply has not handed it out since.
 */
export function staleCondition(ownRunId: string, stepMs: number): string {
  return `(application_name ~ '^pooltest-[0-9a-f]{8}' AND application_name NOT LIKE 'pooltest-${ownRunId}%'
    AND state LIKE 'idle in transaction%' AND state_change < clock_timestamp() - make_interval(secs => ${(staleAfterMs(stepMs) / 1000).toFixed(3)}))`;
}

export interface StaleBackend {
  pid: number;
  applicationName: string;
  state: string;
  /** Seconds since its last state change. */
  ageS: number;
}

/** Stale backends of other runs on this server, read through `session` (an empty list when it cannot tell). */
export async function findStaleBackends(session: Session, ownRunId: string, stepMs: number): Promise<StaleBackend[]> {
  // Not named `pid`: a step's pid is the first `pid` column it returns (its own backend's).
  const step = await session.run(
    'discovery.stale',
    `SELECT pid AS stale_pid, application_name, state, floor(extract(epoch FROM clock_timestamp() - state_change))::int AS age_s
    FROM pg_stat_activity WHERE backend_type = 'client backend' AND ${staleCondition(ownRunId, stepMs)} ORDER BY pid`,
  );
  if (step.error) return [];
  return (step.results[0] ?? []).flatMap((r) =>
    typeof r.stale_pid === 'number' && typeof r.application_name === 'string' && typeof r.age_s === 'number'
      ? [{ pid: r.stale_pid, applicationName: r.application_name, state: String(r.state), ageS: r.age_s }]
      : [],
  );
}

/** The discovery note that reports them, or null when there are none. */
export function staleNote(stale: readonly StaleBackend[]): string | null {
  if (stale.length === 0) return null;
  const list = stale.map((b) => `pid ${b.pid} (${b.applicationName}, ${b.state} for ${b.ageS} s)`).join(', ');
  const meaning =
    'They are not counted in the pool and do not count as other runs; a pooler that lost its client mid-transaction leaves these behind';
  const fix = 'end them with pg_terminate_backend(pid) and set idle_in_transaction_session_timeout';
  return `server finding: ${stale.length} stale backend(s) left by pooltest run(s) that are gone: ${list}. ${meaning}: ${fix}`;
}
