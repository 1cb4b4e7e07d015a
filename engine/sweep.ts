/**
 * The sweep: after the checks, prove the run left nothing behind. Holders take as many
 * backends at once as the pool has (so every backend is visited, not just the one a casual
 * client would get), and on each one list what carries this run's markers: advisory locks,
 * temp tables, LISTEN channels, prepared statements, cursors, GUC values. Whatever is found is
 * reported (a dirty sweep is pooltest's own failure) and removed on the spot. With `--direct`,
 * pg_stat_activity is also searched for a pooltest session left idle in a transaction.
 */
import { LOCK_NAMESPACE, markersFor } from './markers.js';
import { Scenario, type RunContext } from './steering/scenario.js';
import { dismiss, take, type Hold } from './steering/holders.js';
import { cleanupBlock } from './steering/state-scenario.js';
import { numberOf, valueOf } from './judging/record.js';
import type { SweepResult } from './types.js';

/** Counts of this run's leftovers, one column each, on the backend that runs it. */
export function inspectionSql(runId: string, checkIds: readonly string[]): string {
  const like = `'pooltest\\_${runId}%'`;
  const keys = lockKeys(runId, checkIds).join(', ');
  const timeouts = checkIds.map((id) => `'${markersFor(runId, id).statementTimeout}'`).join(', ');
  return `SELECT pg_backend_pid() AS pid,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid IN (${keys}) AND pid = pg_backend_pid()) AS locks,
    (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE ${like} AND pg_table_is_visible(oid)) AS temp_tables,
    (SELECT count(*)::int FROM pg_listening_channels() AS c WHERE c LIKE ${like}) AS listens,
    (SELECT count(*)::int FROM pg_prepared_statements WHERE name LIKE ${like}) AS prepared,
    (SELECT count(*)::int FROM pg_cursors WHERE name LIKE ${like}) AS cursors,
    (current_setting('statement_timeout') IN (${timeouts}))::int AS timeout_marker,
    (current_setting('application_name') LIKE 'pooltest-${runId}%')::int AS app_marker,
    (coalesce(current_setting('app.tenant_id', true), '') LIKE 'pooltest-${runId}%')::int AS guc_marker`;
}

/** PL/pgSQL that removes every marker of the run from the backend it runs on. */
export function cleanupSql(runId: string, checkIds: readonly string[]): string {
  const parts: string[] = [];
  for (const id of checkIds) {
    const m = markersFor(runId, id);
    parts.push(
      `WHILE pg_advisory_unlock(${LOCK_NAMESPACE}, ${m.lockKey}) LOOP END LOOP;`,
      `WHILE pg_advisory_unlock(${LOCK_NAMESPACE}, ${m.lockKey2}) LOOP END LOOP;`,
      `IF current_setting('statement_timeout') = '${m.statementTimeout}' THEN RESET statement_timeout; END IF;`,
    );
  }
  parts.push(
    `PERFORM pg_catalog.set_config('client_min_messages', 'error', true);`,
    `IF current_setting('application_name') LIKE 'pooltest-${runId}%' THEN RESET application_name; END IF;`,
    `IF coalesce(current_setting('app.tenant_id', true), '') LIKE 'pooltest-${runId}%' THEN RESET app.tenant_id; END IF;`,
    `DECLARE r record; BEGIN`,
    `FOR r IN SELECT c AS n FROM pg_listening_channels() AS c WHERE c LIKE 'pooltest\\_${runId}%' LOOP EXECUTE format('UNLISTEN %I', r.n); END LOOP;`,
    `FOR r IN SELECT name AS n FROM pg_prepared_statements WHERE name LIKE 'pooltest\\_${runId}%' LOOP EXECUTE format('DEALLOCATE %I', r.n); END LOOP;`,
    `FOR r IN SELECT relname AS n FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'pooltest\\_${runId}%' AND pg_table_is_visible(oid) LOOP EXECUTE format('DROP TABLE pg_temp.%I', r.n); END LOOP;`,
    `FOR r IN SELECT name AS n FROM pg_cursors WHERE name LIKE 'pooltest\\_${runId}%' AND is_holdable LOOP EXECUTE format('CLOSE %I', r.n); END LOOP;`,
    `END;`,
  );
  return parts.join(' ');
}

function lockKeys(runId: string, checkIds: readonly string[]): number[] {
  return checkIds.flatMap((id) => {
    const m = markersFor(runId, id);
    return [m.lockKey, m.lockKey2];
  });
}

const LEFTOVER_COLUMNS = ['locks', 'temp_tables', 'listens', 'prepared', 'cursors', 'timeout_marker', 'app_marker', 'guc_marker'] as const;

/** Visits every backend the pool has, reports this run's leftovers and removes them. */
export async function sweep(ctx: RunContext, checkIds: readonly string[]): Promise<SweepResult> {
  const scn = new Scenario(ctx);
  const leftovers: string[] = [];
  const visited = new Set<number>();
  const via: string[] = ['target'];
  const holds: Hold[] = [];
  try {
    const width = ctx.discovery.mode === 'direct' ? 1 : (ctx.discovery.poolSize ?? ctx.discovery.poolBound);
    const statements = [inspectionSql(ctx.runId, checkIds), cleanupBlock(cleanupSql(ctx.runId, checkIds))];
    for (let i = 1; i <= width; i++) {
      const s = await scn.tryOpen(`S${i}`, 'sweep.connect', ctx.bounds.connectMs);
      if (!s) break;
      const hold = await take(scn, s, 'sweep.visit', { statements, releaseBy: 'wait', holdMs: 200 });
      if (hold.waited) break;
      holds.push(hold);
    }
    // Disconnect, not just commit: under session pooling a connected holder keeps its backend.
    await dismiss(holds);
    for (const step of scn.steps.filter((s) => s.tag === 'sweep.visit')) {
      if (step.pid === null) continue;
      visited.add(step.pid);
      for (const col of LEFTOVER_COLUMNS) {
        const n = numberOf(step, col) ?? 0;
        if (n > 0) leftovers.push(`backend ${step.pid}: ${col} = ${n}`);
      }
      if (step.error) leftovers.push(`backend ${step.pid}: sweep could not inspect: ${step.error.message}`);
    }
    if (visited.size === 0) leftovers.push('the sweep could not reach any backend');
    await sweepGlobal(scn, ctx, checkIds, leftovers, via);
  } catch (err) {
    leftovers.push(`the sweep could not finish: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await scn.closeAll();
  }
  return { clean: leftovers.length === 0, backendsVisited: [...visited].sort((a, b) => a - b), leftovers, via };
}

/** Catalog-wide views: locks and temp tables of any session, and (direct) idle transactions. */
async function sweepGlobal(scn: Scenario, ctx: RunContext, checkIds: readonly string[], leftovers: string[], via: string[]): Promise<void> {
  const keys = lockKeys(ctx.runId, checkIds).join(', ');
  const globalSql = `SELECT pg_backend_pid() AS pid,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid IN (${keys})) AS any_locks,
    (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'pooltest\\_${ctx.runId}%') AS any_temp_tables`;
  const g = await scn.open('G');
  const step = await g.run('sweep.global', globalSql);
  for (const col of ['any_locks', 'any_temp_tables']) {
    const n = numberOf(step, col) ?? 0;
    if (n > 0) leftovers.push(`some backend: ${col} = ${n}`);
  }
  if (!ctx.direct) return;
  via.push('direct');
  const d = await scn.open('GD', { to: 'direct' });
  const idle = await d.run(
    'sweep.direct',
    `SELECT count(*)::int AS idle_in_tx FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND application_name = 'pooltest' AND pid <> pg_backend_pid()`,
  );
  const n = numberOf(idle, 'idle_in_tx') ?? 0;
  if (n > 0) leftovers.push(`direct: ${n} pooltest session(s) idle in transaction`);
  if (valueOf(idle, 'idle_in_tx') === undefined) leftovers.push(`direct: could not read pg_stat_activity: ${idle.error?.message ?? 'no answer'}`);
}
