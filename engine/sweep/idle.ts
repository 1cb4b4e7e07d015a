/**
 * Sessions of this run that a pooler kept idle inside a transaction after their clients left:
 * a pooler that neither rolls back nor closes a departed client's server connection (pgagroal
 * 1.6.0's transaction pipeline once kept both of its server connections so for minutes, and
 * answered nobody meanwhile). pooltest's own sessions roll back before they leave
 * (Session.close), so what is still found is the pooler's doing, or a session cut off mid-step.
 * With `--direct` the sweep ends them (pg_terminate_backend), only those carrying this run's
 * name, and says so: the pool is handed back usable, and the finding is about the pooler.
 */
import type { Session } from '../session/session.js';
import type { Scenario } from '../steering/scenario.js';
import { numberOf } from '../record/step-reading.js';
import { sleep } from '../record/time.js';

/**
 * SQL condition: a backend of this run, idle inside a transaction. This run's by its
 * application_name, or by its last statement naming the run (`pooltest-<run>`, eight random
 * hex digits): the sweep's nameless visitors send no name but name the run in what they look
 * for, and a visitor that gave up waiting still had its message run once pgagroal found it a
 * server connection, which it then kept idle in that transaction.
 */
export function idleOfRun(runId: string): string {
  return `state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()
    AND (application_name LIKE 'pooltest-${runId}%' OR query LIKE '%pooltest-${runId}%')`;
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
      `backend ${String(row.idle_pid)} (${row.idle_app ? String(row.idle_app) : 'no application_name'}): idle in transaction for ${String(row.idle_ms)} ms after its client left, ended through --direct`,
    );
  }
  return { ended, failed };
}

/** The sweep's sentence about what it ended: a finding about the pooler, not a leftover. */
export function endedFinding(count: number): string {
  return `the pooler kept ${count} session(s) of this run idle in a transaction after their clients left (it neither rolled back nor closed their server connections); pooltest ended them through --direct`;
}

/**
 * With --direct, once more after the nameless clients: one that gave up waiting for a backend
 * can still have its transaction begun on one later (pgagroal keeps it). One statement when
 * there is none; the login was made at the sweep's start.
 */
export async function lastIdleLook(
  scn: Scenario,
  login: Promise<Session>,
  runId: string,
  lists: SweepLists,
): Promise<void> {
  try {
    // The first direct look could not end them: this one would say so again.
    if (lists.leftovers.some((l) => l.startsWith('direct: ') && IDLE_LINE.test(l))) return;
    await idleInTransaction(scn, await login, 'direct', runId, lists);
  } catch (err) {
    lists.doubts.push(
      `direct: could not look for idle transactions: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    await scn.closeAll();
  }
}

/** What the sweep found, could not look at, and ended, kept apart (see sweep()). */
export interface SweepLists {
  leftovers: string[];
  doubts: string[];
  ended: string[];
}

/** A leftover line of idleInTransaction. */
export const IDLE_LINE = /^\w+: \d+ session\(s\) of this run idle in transaction$/;

/** How long a backend of ours may take to leave a transaction after its client went away. */
const SETTLE_MS = 1_000;

/**
 * Backends of this run (idleOfRun) idle inside a transaction: a session of ours the pooler
 * kept open. Looked at again for a moment before it counts, because a pooler closes a dead
 * client's server connection asynchronously. Directly, those still there are ended
 * (endIdleOfRun): a leftover only if that fails.
 */
export async function idleInTransaction(
  scn: Scenario,
  s: Session,
  where: string,
  runId: string,
  lists: SweepLists,
): Promise<void> {
  const { leftovers, doubts } = lists;
  const sql = `SELECT count(*)::int AS idle_in_tx FROM pg_stat_activity WHERE ${idleOfRun(runId)}`;
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const step = await s.run(`sweep.${where}.idle`, sql);
    const n = numberOf(step, 'idle_in_tx');
    if (n === null) {
      doubts.push(`${where}: could not read pg_stat_activity: ${step.error?.message ?? 'no answer'}`);
      return;
    }
    if (n === 0) return;
    if (Date.now() >= deadline || scn.interrupted) {
      const { ended, failed } = where === 'direct' ? await endIdleOfRun(s, runId) : { ended: [], failed: n };
      lists.ended.push(...ended);
      if (failed > 0) leftovers.push(`${where}: ${failed} session(s) of this run idle in transaction`);
      return;
    }
    await sleep(100);
  }
}
