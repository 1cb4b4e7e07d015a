/**
 * Sessions of this run that a pooler kept idle inside a transaction after their clients left:
 * a pooler that neither rolls back nor closes a departed client's server connection (pgagroal
 * 1.6.0's transaction pipeline once kept both of its server connections so for minutes, and
 * answered nobody meanwhile). pooltest's own sessions roll back before they leave
 * (Session.close), so what is still found is the pooler's doing, or a session cut off mid-step.
 * With `--direct` the sweep ends them (pg_terminate_backend), only those carrying this run's
 * name, and says so: the pool is handed back usable, and the finding is about the pooler.
 */
import type { Session } from './session/session.js';

/** SQL condition: a backend of this run (by its application_name), idle inside a transaction. */
export function idleOfRun(runId: string): string {
  return `state LIKE 'idle in transaction%' AND application_name LIKE 'pooltest-${runId}%' AND pid <> pg_backend_pid()`;
}

/**
 * Ends this run's backends idle in a transaction, through a direct session. Returns one line
 * per backend it ended, and how many it found but could not end (a role without the right to
 * signal them: pg_terminate_backend answers false).
 */
export async function endIdleOfRun(direct: Session, runId: string): Promise<{ ended: string[]; failed: number }> {
  const step = await direct.run(
    'sweep.direct.end-idle',
    `SELECT pid AS idle_pid, application_name AS idle_app,
      floor(extract(epoch FROM clock_timestamp() - state_change) * 1000)::bigint AS idle_ms,
      pg_terminate_backend(pid) AS ended
    FROM pg_stat_activity WHERE ${idleOfRun(runId)} ORDER BY pid`,
  );
  if (step.error) return { ended: [], failed: 1 };
  const ended: string[] = [];
  let failed = 0;
  for (const row of step.results[0] ?? []) {
    if (row.ended !== true) {
      failed++;
      continue;
    }
    ended.push(
      `backend ${String(row.idle_pid)} (${String(row.idle_app)}): idle in transaction for ${String(row.idle_ms)} ms after its client left, ended through --direct`,
    );
  }
  return { ended, failed };
}

/** The sweep's sentence about what it ended: a finding about the pooler, not a leftover. */
export function endedFinding(count: number): string {
  return `the pooler kept ${count} session(s) of this run idle in a transaction after their clients left (it neither rolled back nor closed their server connections); pooltest ended them through --direct`;
}
