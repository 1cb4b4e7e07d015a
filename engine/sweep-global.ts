/**
 * The sweep's last look (see sweep.ts): catalog-wide, what no visit to one backend can see -
 * this run's advisory locks and temp tables held by any session, its schemas and regular tables
 * (dropped on the spot: they outlive every backend), and a session of this run left idle in a
 * transaction, through the target and, with `--direct`, directly.
 */
import { LOCK_NAMESPACE } from './markers.js';
import type { RunContext, Scenario } from './steering/scenario.js';
import { cleanupBlock } from './steering/state-scenario.js';
import { countRunTablesSql, dropTablesSql, runTablePattern } from './steering/run-table.js';
import { numberOf } from './judging/record.js';
import { sleep } from './time.js';
import type { Session } from './session/session.js';
import { lockKeys } from './sweep-sql.js';

/** Sessions for the catalog-wide look, logging in ahead (null: log in when needed). */
export interface Logins {
  target: Promise<Session> | null;
  direct: Promise<Session> | null;
}

/** Catalog-wide views: locks and temp tables of any session, and (direct) idle transactions. */
export async function sweepGlobal(
  scn: Scenario,
  ctx: RunContext,
  checkIds: readonly string[],
  leftovers: string[],
  doubts: string[],
  via: string[],
  early: Logins,
): Promise<void> {
  const keys = lockKeys(ctx.runId, checkIds).join(', ');
  const globalSql = `SELECT pg_backend_pid() AS pid,
    (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = ${LOCK_NAMESPACE} AND objid IN (${keys})) AS any_locks,
    (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'pooltest\\_${ctx.runId}%') AS any_temp_tables,
    (SELECT count(*)::int FROM pg_namespace WHERE nspname LIKE 'pooltest\\_${ctx.runId}%') AS any_schemas,
    (${countRunTablesSql(runTablePattern(ctx.runId))}) AS run_tables`;
  const g = await (early.target ?? scn.open('G'));
  const step = await g.run('sweep.global', globalSql);
  if (step.error) doubts.push(`could not look catalog-wide: ${step.error.message}`);
  for (const col of ['any_locks', 'any_temp_tables', 'any_schemas', 'run_tables']) {
    const n = numberOf(step, col) ?? 0;
    if (n > 0) leftovers.push(`some backend: ${col} = ${n}`);
  }
  // Unlike session state, a schema outlives every backend: drop it here. The name is unique to
  // this run and nobody else's CREATE lands in it (checks put it last in search_path), so
  // CASCADE removes only what pooltest put there.
  if ((numberOf(step, 'any_schemas') ?? 0) > 0) {
    await g.run(
      'sweep.cleanup',
      cleanupBlock(
        `DECLARE r record; BEGIN FOR r IN SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'pooltest\\_${ctx.runId}%' LOOP EXECUTE format('DROP SCHEMA %I CASCADE', r.n); END LOOP; END;`,
      ),
    );
  }
  // Regular tables outlive backends too: drop them here, ending any session of ours still
  // inside a transaction on one (an abandoned INSERT a pooler kept open).
  if ((numberOf(step, 'run_tables') ?? 0) > 0) {
    await g.run('sweep.cleanup', cleanupBlock(dropTablesSql(runTablePattern(ctx.runId), ctx.bounds.stepMs / 2)));
  }
  // The two looks for idle transactions, through the target and directly, ask the same
  // question of different sessions: together, one round trip instead of two.
  const direct = ctx.direct ? (early.direct ?? scn.open('GD', { to: 'direct' })) : null;
  if (direct) via.push('direct');
  // Each look writes its own lists, added in a fixed order (target first) once both ended.
  const looks = [g, direct].map((session, i) => {
    const found = { left: [] as string[], doubts: [] as string[] };
    const where = i === 0 ? 'target' : 'direct';
    const done = session
      ? Promise.resolve(session).then((s) => idleInTransaction(scn, s, where, ctx.runId, found.left, found.doubts))
      : Promise.resolve();
    return { found, done };
  });
  const settled = await Promise.allSettled(looks.map((l) => l.done));
  for (const { found } of looks) {
    leftovers.push(...found.left);
    doubts.push(...found.doubts);
  }
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** How long a backend of ours may take to leave a transaction after its client went away. */
const SETTLE_MS = 1_000;

/**
 * Backends that carry this run's application_name and sit idle inside a transaction: a session
 * of ours the pooler kept open. Looked at again for a moment before it counts, because a
 * pooler closes a dead client's server connection asynchronously.
 */
async function idleInTransaction(
  scn: Scenario,
  s: Session,
  where: string,
  runId: string,
  leftovers: string[],
  doubts: string[],
): Promise<void> {
  const sql = `SELECT count(*)::int AS idle_in_tx FROM pg_stat_activity
    WHERE state LIKE 'idle in transaction%' AND application_name LIKE 'pooltest-${runId}%' AND pid <> pg_backend_pid()`;
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
      leftovers.push(`${where}: ${n} session(s) of this run idle in transaction`);
      return;
    }
    await sleep(100);
  }
}
