/**
 * One driver in one configuration through the target, steered by pooltest's own holders.
 * Three phases over one record (each phase's tags carry its prefix, as the engine's phases do):
 *
 *   moved:     A (agent process 1) runs Q ×N                      -- every run on backend b1
 *              O takes b1 (BEGIN; SELECT pg_backend_pid()), other candidates dismissed
 *              A runs Q once                                      -- must run elsewhere
 *   collision: b1 made the only free backend (holders on all the others)
 *              B (agent process 2, same driver and options) runs Q ×N  -- every run on b1,
 *              where A's statement (same driver-generated name) may still be prepared
 *   cursor:    A reads a cursor with a fetch size in a transaction -- on backend c1
 *              O takes c1; A reads the cursor again                -- must run elsewhere
 *   batch:     A sends batches with the driver's own batch call while other clients compete
 *              for the pool (batch-scenario.ts)
 *   migration: a framework's own migration, its lock's release kept off the lock's backend
 *              (migration-phase.ts)
 *
 * A configuration runs the phases it is given (catalogue.ts's phasesOf: the cursor, the batch
 * and the migration only where the driver has them, and only the batch for a batch-only option).
 *
 * Q is `SELECT pg_backend_pid() AS pid, $1::int AS answer /* pooltest-drivers <run> *\/`: every
 * run proves where it ran, and the comment marks the statement text, so the cleanup can
 * deallocate the drivers' statements (whatever they named them) on every backend they touched.
 * The tags are drivers/tags.ts's. The judges (judge.ts) decide; this file only drives and records.
 */
import { createHash } from 'node:crypto';
import { landOn } from '../engine/steering/land-on.js';
import { dismiss, take, type Hold } from '../engine/steering/holders.js';
import { cleanOn } from '../engine/steering/clean-on.js';
import { sharesBackends } from '../engine/judging/landing.js';
import type { Scenario } from '../engine/steering/scenario.js';
import { AgentProcess } from './agent-process.js';
import { runBatchPhase } from './batch-scenario.js';
import type { DriverConfig, DriverSpec } from './catalogue.js';
import { runMigrationPhase } from './migration-phase.js';
import { DRIVER_TAGS, type DriverScenarioId } from './tags.js';

/** Executions before the move: past psycopg's and pgjdbc's prepare threshold (5). */
export const WARM_RUNS = 7;
/** Rows and fetch size of the cursor phase: several fetches, so a named portal is used. */
const CURSOR_ROWS = 10;
const CURSOR_FETCH = 3;

/**
 * The comment that marks one configuration's statements, unique to the run, the driver and the
 * configuration. Unique per configuration, not per run: a pooler that tracks protocol-level
 * statements (PgBouncer 1.21+) keeps its own server-side copy (`PGBOUNCER_N`) of each text it
 * has seen, which the cleanup deallocates with ours; had the next configuration sent the same
 * text, PgBouncer would have taken the copy for still prepared, and every driver's first use
 * failed with 26000 "prepared statement PGBOUNCER_N does not exist" (seen on 1.25.2).
 */
export function markerComment(runId: string, driver: string, config: string): string {
  const tag = createHash('sha256').update(`${driver}\0${config}`).digest('hex').slice(0, 8);
  return `pooltest-drivers ${runId} ${tag}`;
}

export interface DriverRunOptions {
  /** Bound of each agent step (ms). */
  stepMs: number;
  /** Bound of an agent's start (a JVM compiles the agent first: about a second, more under load). */
  startMs: number;
  /** The phases to run, in DRIVER_SCENARIOS order. */
  phases: readonly DriverScenarioId[];
}

/** Drives one driver configuration; returns the reason when the agent cannot run (skip). */
export async function runDriverScenario(
  scn: Scenario,
  driver: DriverSpec,
  config: DriverConfig,
  opts: DriverRunOptions,
): Promise<{ skipped: string } | { version: string }> {
  const marker = markerComment(scn.ctx.runId, driver.id, config.name);
  const sql = `SELECT pg_backend_pid() AS pid, $1::int AS answer /* ${marker} */`;
  const cursorSql = `SELECT pg_backend_pid() AS pid, g AS n FROM generate_series(1, $1::int) AS g /* ${marker} */`;
  const url = urlOf(scn);
  const tx = config.transaction === true;
  const connect = { op: 'connect', url, options: config.options, autocommit: !tx };
  const query = (times: number) => ({ op: 'query', sql, param: 42, times, tx });
  const what = (times: number) => `${tx ? 'BEGIN; ' : ''}${sql}${times > 1 ? ` ×${times}` : ''}${tx ? '; COMMIT' : ''}`;
  const t0 = performance.now();
  const agents: AgentProcess[] = [];
  const runs = (phase: DriverScenarioId) => opts.phases.includes(phase);
  // B starts with A (it connects only in the collision phase): one start-up wait, not two.
  const [started, second] = await Promise.all([
    AgentProcess.start(driver.command(), 'A', scn.recorder, opts.startMs),
    runs('collision')
      ? AgentProcess.start(driver.command(), 'B', scn.recorder, opts.startMs)
      : Promise.resolve({ skipped: 'no collision phase in this configuration' }),
  ]);
  if ('skipped' in started) {
    if (!('skipped' in second)) second.kill();
    return started;
  }
  agents.push(started);
  if (!('skipped' in second)) agents.push(second);
  const a = started;
  const touched = new Set<number>();
  const seen = (pids: Array<number | null>) => pids.forEach((p) => p !== null && touched.add(p));
  try {
    scn.recordMarkers({ marker, driver: driver.id, config: config.name, warmRuns: WARM_RUNS });
    const conn = await a.step(DRIVER_TAGS.connect, connect, opts.stepMs, `(connect ${config.how})`);
    if (conn.error) return { version: a.hello?.version ?? '?' };
    // moved (and collision, which lands B on moved's first backend)
    const warm = runs('moved')
      ? await a.step(DRIVER_TAGS.moved.create, query(WARM_RUNS), opts.stepMs, what(WARM_RUNS))
      : null;
    if (warm) seen(runPids(warm.results[0]));
    if (warm && warm.pid !== null && !warm.error) {
      const landing = await landOn(scn, warm.pid, { tag: DRIVER_TAGS.moved.observe, prefix: 'O' });
      await dismiss(landing.others);
      const next = await a.step(DRIVER_TAGS.moved.readback, query(1), opts.stepMs, what(1));
      seen(runPids(next.results[0]));
      await dismiss([landing.observer]);
      // collision
      const b1 = warm.pid;
      const held = await leaveOnlyFree(scn, b1);
      const b = second;
      if (!('skipped' in b)) {
        const bConn = await b.step(DRIVER_TAGS.collision.connect, connect, opts.stepMs, `(connect ${config.how})`);
        if (!bConn.error) {
          const bWarm = await b.step(DRIVER_TAGS.collision.create, query(WARM_RUNS), opts.stepMs, what(WARM_RUNS));
          seen(runPids(bWarm.results[0]));
        }
        await b.step(DRIVER_TAGS.collision.close, { op: 'close' }, opts.stepMs, '(close)');
      }
      await dismiss(held);
    }
    // cursor
    if (driver.cursor !== null && runs('cursor')) {
      const cursor = { op: 'cursor', sql: cursorSql, param: CURSOR_ROWS, fetch: CURSOR_FETCH };
      const cwhat = `BEGIN; ${cursorSql} (fetch ${CURSOR_FETCH} at a time); COMMIT`;
      const c1 = await a.step(DRIVER_TAGS.cursor.create, cursor, opts.stepMs, cwhat);
      seen(runPids(c1.results[0]));
      if (c1.pid !== null && !c1.error) {
        const landing = await landOn(scn, c1.pid, { tag: DRIVER_TAGS.cursor.observe, prefix: 'Q' });
        await dismiss(landing.others);
        const c2 = await a.step(DRIVER_TAGS.cursor.readback, cursor, opts.stepMs, cwhat);
        seen(runPids(c2.results[0]));
        await dismiss([landing.observer]);
      }
    }
    // batch
    if (driver.batch !== null && runs('batch')) await runBatchPhase(scn, a, config, marker, opts.stepMs, seen);
    if (!a.alive) return { version: a.hello?.version ?? '?' };
    // migration
    if (driver.migration !== undefined && runs('migration'))
      await runMigrationPhase(scn, a, marker, config.how, opts.stepMs);
    await a.step(DRIVER_TAGS.close, { op: 'close' }, opts.stepMs, '(close)');
    return { version: a.hello?.version ?? '?' };
  } finally {
    await Promise.all(agents.map((x) => x.close()));
    // The drivers' statements stay prepared on the server connections (a transaction pooler
    // resets nothing between clients): deallocate ours, recognised by the marker, everywhere.
    // (An integer FOR loop: a DO block without DECLARE has no record variable to loop with.)
    // Drivers also prepare statements of their own (pgjdbc its COMMIT, postgres.js its type
    // lookup): those the driver spec recognises, prepared since this configuration started.
    const since = Math.ceil((performance.now() - t0) / 1000) + 5;
    const control = driver.ownStatements
      ? ` OR ((${driver.ownStatements}) AND prepare_time >= now() - make_interval(secs => ${since}))`
      : '';
    const ours = `FROM pg_prepared_statements WHERE statement LIKE '%${marker}%'${control}`;
    const dealloc = `FOR i IN 1..(SELECT count(*) ${ours}) LOOP EXECUTE (SELECT format('DEALLOCATE %I', name) ${ours} LIMIT 1); END LOOP;`;
    // A WITH HOLD cursor outlives its transaction on the backend that declared it (Django's
    // iterator in autocommit); one whose FETCH went elsewhere is still open there: closed too.
    const cursors = `FROM pg_cursors WHERE statement LIKE '%${marker}%'`;
    const close = `FOR i IN 1..(SELECT count(*) ${cursors}) LOOP EXECUTE (SELECT format('CLOSE %I', name) ${cursors} LIMIT 1); END LOOP;`;
    for (const pid of touched) await cleanOn(scn, pid, `${dealloc} ${close}`);
  }
}

/**
 * Holds every backend but `pid`, so the next client's statements run on `pid`. Candidates take
 * backends one by one; one that lands on `pid` is let go once the others are held.
 */
async function leaveOnlyFree(scn: Scenario, pid: number): Promise<Hold[]> {
  const d = scn.discovery;
  // Without sharing (direct, session pooling) B gets a backend of its own, and holders would
  // only take the one it needs while A keeps b1.
  if (!sharesBackends(d) || d.poolSize === null) return [];
  const held: Hold[] = [];
  let onPid: Hold | null = null;
  for (let i = 1; i <= d.poolSize + 1 && held.length < d.poolSize - 1; i++) {
    const session = await scn.open(`K${i}`);
    const hold = await take(scn, session, DRIVER_TAGS.collision.hold);
    if (hold.pid === pid) onPid = hold;
    else if (hold.pid !== null) held.push(hold);
    else {
      await dismiss([hold]);
      break;
    }
  }
  await dismiss([onPid]);
  return held;
}

function runPids(runs: Array<Record<string, unknown>> | undefined): Array<number | null> {
  return (runs ?? []).map((r) => (typeof r.pid === 'number' ? r.pid : null));
}

function urlOf(scn: Scenario): string {
  const t = scn.ctx.target;
  const auth = `${encodeURIComponent(t.user)}${t.password !== undefined ? `:${encodeURIComponent(t.password)}` : ''}`;
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `postgresql://${auth}@${host}:${t.port}/${encodeURIComponent(t.database)}?sslmode=disable`;
}
