/**
 * A framework's migration through the target, steered so that its lock's release cannot land on
 * the backend that took the lock (the judge: migration-judge.ts):
 *
 *   A starts the migration; from inside it (its DDL transaction, on backend T) the framework
 *     reads pg_backend_pid() and the backend L holding its advisory lock (pg_locks)
 *   L != T: a client is landed on L (L is idle), the rest let go; A's migration finishes
 *     (commit on T, pg_advisory_unlock wherever the pooler sends it: not L)
 *   L == T: holders take every other backend, a client queues for a backend (it gets L when
 *     the migration commits, ahead of the migrator's next statements, which come a round trip
 *     later), then the holders let go and the migration finishes elsewhere
 *   Without a lock (advisory_locks: false), or where connections keep their backends, A's
 *   migration finishes unsteered.
 *
 * Cleanup: the lock, still held on L when the unlock went elsewhere, is released there, and
 * the framework's bookkeeping tables (named with the run's prefix) are dropped.
 */
import { createHash } from 'node:crypto';
import { landOn } from '../engine/steering/land-on.js';
import { dismiss, take, type Hold } from '../engine/steering/holders.js';
import { cleanOn } from '../engine/steering/clean-on.js';
import { sharesBackends } from '../engine/judging/landing.js';
import type { Scenario } from '../engine/steering/scenario.js';
import type { AgentProcess } from './agent-process.js';
import { migrationReport } from './migration-judge.js';
import { DRIVER_TAGS } from './tags.js';

/** How long the queued client waits for L before the migration is let finish (ms). */
const QUEUE_SETTLE_MS = 300;

export async function runMigrationPhase(
  scn: Scenario,
  a: AgentProcess,
  marker: string,
  how: string,
  stepMs: number,
): Promise<void> {
  const tags = DRIVER_TAGS.migration;
  // The framework's bookkeeping tables, unique to this configuration's run.
  const prefix = `pooltest_${createHash('sha256').update(marker).digest('hex').slice(0, 10)}_`;
  const what = `(migration, ${how})`;
  const start = await a.step(tags.create, { op: 'migrate', prefix }, stepMs, `${what}: started`);
  const finish = () => a.step(tags.readback, { op: 'migrate' }, stepMs, `${what}: let finish`);
  const report = migrationReport(start);
  let lockHolder: number | null = null;
  try {
    if (start.error || start.pid === null) return;
    lockHolder = report.lockPid;
    if (report.lockPid === null || !sharesBackends(scn.discovery) || scn.discovery.poolSize === null) {
      await finish();
      return;
    }
    if (report.lockPid !== report.pid) {
      const landing = await landOn(scn, report.lockPid, { tag: tags.observe, prefix: 'M' });
      await dismiss(landing.others);
      await finish();
      await dismiss([landing.observer]);
      return;
    }
    // L is busy with the migration itself: hold the others, queue for L, then let it finish.
    const held: Hold[] = [];
    for (let i = 1; i < scn.discovery.poolSize; i++) {
      const hold = await take(scn, await scn.open(`K${i}`), tags.hold);
      if (hold.pid === null) {
        await dismiss([hold]);
        break;
      }
      held.push(hold);
    }
    const queued = take(scn, await scn.open('M1'), tags.observe, { waitMs: stepMs });
    await new Promise<void>((r) => setTimeout(r, QUEUE_SETTLE_MS));
    const finished = finish();
    const observer = await queued;
    await dismiss(held);
    await finished;
    await dismiss([observer]);
  } finally {
    await cleanUp(scn, lockHolder, report.lockId, prefix);
  }
}

async function cleanUp(scn: Scenario, lockPid: number | null, lockId: string | null, prefix: string): Promise<void> {
  if (lockPid !== null && lockId !== null && /^-?\d+$/.test(lockId)) {
    const held = `FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ${lockId}`;
    await cleanOn(scn, lockPid, `IF EXISTS (SELECT 1 ${held}) THEN PERFORM pg_advisory_unlock(${lockId}); END IF;`);
  }
  // Tables are not session state: any session drops them.
  const tables = `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables WHERE left(tablename, ${prefix.length}) = '${prefix}'`;
  const s = await scn.open('T');
  await s.run(
    'clean.tables',
    `DO $pooltest$ DECLARE t text; BEGIN FOR t IN ${tables} LOOP EXECUTE 'DROP TABLE ' || t; END LOOP; END $pooltest$`,
  );
}
