/**
 * The batch phase of a driver run: the driver's own batch or pipeline call (the agents' `batch`
 * op: executeBatch, executemany, pipeline mode...), sent while other clients compete for the
 * pool, several times. Each statement of a batch writes where it ran into a table of the run:
 *
 *   T:  CREATE TABLE pooltest_batch_<hash> (batch int, n int, pid int, xid bigint)
 *   for run in 1..BATCH_RUNS:                     -- every other run inside a transaction
 *     W1..Wp: SELECT pg_backend_pid() FROM pg_sleep(0.005), over and over   -- competitors
 *     A:  batch of BATCH_SIZE × INSERT INTO t VALUES (run, n, pg_backend_pid(), txid_current())
 *     W1..Wp stop
 *   T:  SELECT batch, n, pid, xid FROM t;  DROP TABLE t
 *
 * The statement returns no rows because pgjdbc's executeBatch refuses one that does; so the
 * evidence of where each statement ran is the table, read once by T and recorded. The
 * competitors are pooltest sessions through the target, one per pooled backend: each time the
 * pooler gives A's server connection back to the pool between statements of a batch, one of
 * them is waiting to take it. Where backends are not shared (direct, session pooling) there is
 * nobody to compete with and none are started. A batch that does not answer within the step
 * bound gets its agent killed (agent-process.ts): the phase ends there, and the judge says
 * `stalled`, with how long pooltest waited. The judge is judge-batch.ts.
 */
import { createHash } from 'node:crypto';
import { sharesBackends } from '../engine/judging/landing.js';
import type { Scenario } from '../engine/steering/scenario.js';
import type { Session } from '../engine/session/session.js';
import type { AgentProcess } from './agent-process.js';
import type { DriverConfig } from './catalogue.js';
import { DRIVER_TAGS } from './tags.js';

/** Batches per configuration: a defect that shows one time in three is missed in 8 runs with odds (2/3)^8, 4 %. */
export const BATCH_RUNS = 8;
/** Statements per batch: past psycopg's and pgjdbc's prepare threshold (5), so a batch also names its statement. */
export const BATCH_SIZE = 8;
/** What one competitor query holds its backend for (s): long enough to be there when A's is given back. */
const COMPETE_SLEEP_S = 0.005;
/** A competitor stops after this many queries per batch, whatever the batch does (the record stays small). */
const COMPETE_MAX = 200;

/** The table of one configuration's batches: unique to the run, the driver and the configuration. */
export function batchTable(marker: string): string {
  return `pooltest_batch_${createHash('sha256').update(marker).digest('hex').slice(0, 12)}`;
}

/**
 * Runs the batch phase with agent `a` (connected); `seen` is told every backend the batches
 * ran on (the cleanup deallocates the drivers' statements there).
 */
export async function runBatchPhase(
  scn: Scenario,
  a: AgentProcess,
  config: DriverConfig,
  marker: string,
  stepMs: number,
  seen: (pids: Array<number | null>) => void,
): Promise<void> {
  const table = batchTable(marker);
  const sql = `INSERT INTO ${table} (batch, n, pid, xid) VALUES ($1::int, $2::int, pg_backend_pid(), txid_current()) /* ${marker} */`;
  scn.recordMarkers({ table, runs: BATCH_RUNS, statements: BATCH_SIZE }, 'batch');
  const t = await scn.open('T');
  const created = await t.run(
    DRIVER_TAGS.batch.table,
    `CREATE TABLE ${table} (batch int NOT NULL, n int NOT NULL, pid int NOT NULL, xid bigint NOT NULL)`,
  );
  if (created.error) return;
  try {
    const competitors = await openCompetitors(scn);
    for (let run = 1; run <= BATCH_RUNS && a.alive; run++) {
      // In a transaction every other run (always, where the configuration turns autocommit off).
      const tx = config.transaction === true || run % 2 === 0;
      scn.note('A', DRIVER_TAGS.batch.intent, '(the next batch)', { facts: { run, tx, statements: BATCH_SIZE } });
      const competing = compete(competitors);
      await competing.started;
      const params = Array.from({ length: BATCH_SIZE }, (_, i) => [run, i + 1]);
      const what = `${tx ? 'BEGIN; ' : ''}${sql} ×${BATCH_SIZE} in one batch call${tx ? '; COMMIT' : ''}`;
      const step = await a.step(DRIVER_TAGS.batch.run, { op: 'batch', sql, params, tx }, stepMs, what);
      await competing.stop();
      // A killed agent (a stalled batch) takes no more; nor does a driver without a batch API.
      if (step.timedOut || !a.alive || step.error?.message.startsWith('Unsupported:')) break;
    }
  } finally {
    const rows = await t.run(
      DRIVER_TAGS.batch.rows,
      `SELECT batch, n, pid, xid::text AS xid FROM ${table} ORDER BY batch, n`,
    );
    seen((rows.results[0] ?? []).map((r) => (typeof r.pid === 'number' ? r.pid : null)));
    await t.run(DRIVER_TAGS.batch.drop, `DROP TABLE IF EXISTS ${table}`);
  }
}

/** One competitor per pooled backend, where clients share backends; none otherwise. */
async function openCompetitors(scn: Scenario): Promise<Session[]> {
  const d = scn.discovery;
  if (!sharesBackends(d)) return [];
  const n = Math.max(1, d.poolSize ?? 2);
  const out: Session[] = [];
  for (let i = 1; i <= n; i++) out.push(await scn.open(`W${i}`));
  return out;
}

/**
 * Starts every competitor's loop; `started` resolves once each has been answered once (they are
 * in the pool's queue when the batch goes out), `stop` once every loop has ended.
 */
function compete(sessions: readonly Session[]): { started: Promise<void>; stop: () => Promise<void> } {
  let stopped = false;
  const firsts: Array<Promise<void>> = [];
  const loops = sessions.map((s) => {
    let first!: () => void;
    firsts.push(new Promise<void>((r) => (first = r)));
    return (async () => {
      for (let i = 0; i < COMPETE_MAX && !stopped; i++) {
        const step = await s.run(
          DRIVER_TAGS.batch.compete,
          `SELECT pg_backend_pid() AS pid FROM pg_sleep(${COMPETE_SLEEP_S})`,
        );
        first();
        if (step.error || step.timedOut) break;
      }
      first();
    })();
  });
  return {
    started: Promise.all(firsts).then(() => undefined),
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
