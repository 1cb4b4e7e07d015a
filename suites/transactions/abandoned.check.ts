/**
 * transactions/abandoned: when a client dies inside a transaction, is its work rolled back,
 * and does the next client on that backend start clean?
 *
 *   A:  SELECT pg_backend_pid() AS pid, current_schema() AS schema; CREATE TABLE <s>.<t> (note text)
 *   A:  BEGIN
 *   A:  SELECT pg_backend_pid() AS pid, txid_current()::text AS xid, <now in µs> AS started,
 *              <this backend's start> AS backend_start;
 *       INSERT INTO <s>.<t> VALUES ('<tag>')                                    -- backend b1
 *   A:  (its TCP socket is destroyed: no ROLLBACK, no Terminate message)
 *   O1..On: BEGIN; SELECT pg_backend_pid() AS pid;                             -- until one lands on b1
 *       SELECT txid_current_if_assigned()::text AS xid, <now in µs> AS started,
 *              (SELECT count(*) FROM <s>.<t>)::int AS seen
 *   O:  ROLLBACK                 -- never COMMIT: inside A's transaction that would commit A's row
 *   V:  SELECT pg_backend_pid() AS pid, txid_current_if_assigned()::text AS xid,
 *              (SELECT count(*) FROM <s>.<t>)::int AS committed, <b1, same start, in pg_stat_activity>
 *       -- repeated within the wait bound while b1 is still busy
 *   V:  [ROLLBACK, if the verifier itself landed inside A's transaction]
 *   V:  DO $$ drop <s>.<t>, ending any session still holding a lock on it $$
 *
 * A client inside A's transaction is recognised three ways: its BEGIN warns "there is already
 * a transaction in progress", `txid_current_if_assigned()` returns A's transaction id, and
 * `now()` (the transaction's start) equals A's. Direct Postgres, PgBouncer and pgpool-II close
 * A's backend instead, so nobody can land on b1 again: `pg_stat_activity` proves it is gone.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { answered, errorText, numberOf, refused, stepOf, stepsOf, valueOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { dismiss } from '../../engine/steering/holders.js';
import { landOn } from '../../engine/steering/land-on.js';
import { dropTablesSql, endCreatorsSql, exactPattern, qualified } from '../../engine/steering/run-table.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { droppedBy, dropOwn, refusedByServer } from '../../engine/steering/drop-own.js';
import { sleep } from '../../engine/record/time.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Session } from '../../engine/session/session.js';
import type { Facts, Judgement, StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  setup: 'A.setup',
  begin: 'A.begin',
  insert: 'A.insert',
  abandon: 'A.abandon',
  drop: 'V.cleanup',
  /** V ends a transaction the pooler put it inside (A's, still open) before its DROP. */
  rollback: 'V.rollback',
  /** The landing's observer ends its look at A's old backend. */
  observerRollback: 'observe.rollback',
  /** V's reading of what was committed and of what became of A's backend. */
  verify: 'verify',
} as const;

/** The transaction's start in microseconds: equal only for statements of the same transaction. */
const STARTED = `(extract(epoch FROM now()) * 1000000)::bigint::text AS started`;

/** When this backend process started: with the pid, identifies the process beyond pid reuse. */
const BACKEND_START = `(SELECT (extract(epoch FROM backend_start) * 1000000)::bigint::text FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS backend_start`;

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  'rolled-back': {
    means: "nothing of the dead client's transaction was committed, and the next client started clean",
  },
  inherited: {
    means: "the next client found the dead client's transaction open, or its row committed",
    advice:
      "Another client inherited a dead client's open transaction (or its uncommitted work was committed): configure the pooler to roll back or close server connections of disconnected clients, and set idle_in_transaction_session_timeout as a safety net.",
  },
  rejected: {
    means: 'BEGIN itself was refused (statement pooling), so no transaction could be abandoned',
    advice:
      'The pooler refuses transaction blocks (statement pooling), so no client can leave one open; use a transaction-pooling endpoint for transactional work.',
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const abandoned = defineCheck({
  id: 'transactions/abandoned',
  title: 'a transaction abandoned by a dead client is rolled back, and the next client starts clean',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/current/protocol-overview.html (when the backend closes the connection it rolls back any open transaction)',
    'https://github.com/pgbouncer/pgbouncer/blob/master/src/objects.c (disconnect_client: "client disconnect while server was not ready" closes the server connection)',
    'https://www.pgpool.net/docs/latest/en/html/runtime-config-connection-pooling.html (reset_query_list: ABORT on a clean disconnect)',
  ],
  summary:
    "a client's socket dies inside `BEGIN; INSERT`: is anything committed; does the next client inherit the transaction",
  outcomes: OUTCOMES,
  requires: ['create-table'],
  // pgagroal 1.6.0's transaction pipeline: A leaving without Terminate makes its worker close
  // b1's server connection, which a later login opens again, while the observers queue for a
  // backend; a worker forked before that can never use the new connection (suites/pipeline/
  // shared.ts says why) and, its client gone after its bound, keeps spinning. Seen after runs
  // of the whole catalogue (the pipeline checks skipped): one in three or four left two workers
  // spinning, every time after this check's observer gave up waiting, and the next run's
  // discovery was refused.
  wedges: [
    {
      pooler: 'pgagroal',
      mode: 'transaction',
      why: 'a client that dies inside its transaction while others queue for a backend leaves their workers spinning after they left, and later logins are refused until pgagroal restarts',
    },
  ],
  // Kills a client inside a transaction, which costs a lossy pooler a server slot: runs last.
  flags: ['destructive'],
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    const a = await scn.open('A');
    const setup = await a.run(
      TAGS.setup,
      `SELECT pg_backend_pid() AS pid, current_schema()::text AS schema; CREATE TABLE ${m.table} (note text)`,
    );
    // A CREATE left unanswered may still be running on the server: ended first, or it would
    // commit after the drop (run-table.ts).
    const unanswered = setup.error !== null && !refusedByServer(setup);
    const drop = cleanupBlock(
      (unanswered ? `${endCreatorsSql(`CREATE TABLE ${m.table} `)} ` : '') +
        dropTablesSql(exactPattern(m.table), scn.ctx.bounds.stepMs / 2),
    );
    try {
      const schema = setup.results[0]?.[0]?.schema;
      const table = typeof schema === 'string' && !setup.error ? qualified(schema, m.table) : null;
      const b1 = table ? await abandon(scn, a, table, m.tag) : null;
      // Opened only now: under pgpool-II an idle client would hold one of the two child processes.
      const v = await scn.open('V');
      const last = table && b1 ? await verify(scn, v, b1, table) : null;
      // A verifier the pooler put inside A's open transaction must end it, or the DROP below
      // would be rolled back with it.
      if (last?.txStatus === 'T' || last?.txStatus === 'E') await v.run(TAGS.rollback, 'ROLLBACK');
      await v.run(TAGS.drop, drop);
    } finally {
      // The table outlives every backend: where V's DROP did not happen (a step above threw, or
      // it went unanswered queued behind other clients), again on new sessions. A CREATE
      // refused with a SQLSTATE created nothing.
      if (!refusedByServer(setup) && droppedBy(scn.steps, TAGS.drop) !== true)
        await dropOwn(scn, 'W', TAGS.drop, drop, null, setup.error === null);
    }
  },
  judge: judgeAbandoned,
  evidence: (j) => j.reason,
});

/** A's transaction, its socket destroyed, and the next clients; returns A's backend identity. */
async function abandon(scn: Scenario, a: Session, table: string, tag: string): Promise<Backend | null> {
  const begin = await a.run(TAGS.begin, 'BEGIN');
  if (begin.error) return null;
  const insert = await a.run(
    TAGS.insert,
    `SELECT pg_backend_pid() AS pid, txid_current()::text AS xid, ${STARTED}, ${BACKEND_START}; INSERT INTO ${table} VALUES ('${tag}')`,
  );
  const backendStart = insert.results[0]?.[0]?.backend_start;
  if (insert.error || insert.pid === null || typeof backendStart !== 'string') return null;
  a.destroy('abandoned by the check');
  scn.note('A', TAGS.abandon, '(TCP socket destroyed inside the transaction)');
  const landing = await landOn(scn, insert.pid, {
    statements: [
      `SELECT txid_current_if_assigned()::text AS xid, ${STARTED}, (SELECT count(*) FROM ${table})::int AS seen`,
    ],
  });
  if (landing.observer) {
    await landing.observer.session.run(TAGS.observerRollback, 'ROLLBACK');
    await landing.observer.session.close();
  }
  await dismiss(landing.others);
  return { pid: insert.pid, start: backendStart };
}

/** A backend process: its pid, and its start time, so a recycled pid is not mistaken for it. */
interface Backend {
  pid: number;
  start: string;
}

/**
 * What was committed, read from outside any transaction, and what became of b1. A pooler may
 * still be closing or resetting b1 when we look: look again until it is gone or idle.
 */
async function verify(scn: Scenario, v: Session, b1: Backend, table: string): Promise<StepRecord> {
  const old = `FROM pg_stat_activity WHERE pid = ${b1.pid} AND (extract(epoch FROM backend_start) * 1000000)::bigint::text = '${b1.start}'`;
  const sql = `SELECT pg_backend_pid() AS pid, txid_current_if_assigned()::text AS xid, ${STARTED},
    (SELECT count(*) FROM ${table})::int AS committed,
    (SELECT count(*) ${old})::int AS old_alive,
    (SELECT state ${old}) AS old_state,
    (SELECT backend_xid::text ${old}) AS old_xid`;
  const deadline = Date.now() + scn.waitMs;
  for (;;) {
    const step = await v.run(TAGS.verify, sql);
    const state = step.results[0]?.[0]?.old_state;
    const busy = step.pid !== b1.pid && typeof state === 'string' && state !== 'idle';
    if (!busy || step.error || Date.now() >= deadline) return step;
    await sleep(20);
  }
}

/**
 * - A could not create the run's table: inconclusive (the check needs CREATE on its schema).
 * - BEGIN refused (an SQLSTATE, or the pooler hanging up on it): `rejected`.
 * - A's INSERT did not run with a pid, transaction id and start time, or A's socket was not
 *   destroyed: inconclusive.
 * - A client on b1 (a candidate, or the verifier) was inside A's transaction - BEGIN warned
 *   25001, same transaction id, or same transaction start: `inherited`.
 * - Read from outside A's transaction, A's row is committed: `inherited`.
 * - A client on b1 started clean: `rolled-back`. Nobody reached b1 and it is gone from
 *   pg_stat_activity: `rolled-back` with `backendClosed`; it is idle with no transaction:
 *   `rolled-back`; still in a transaction: inconclusive.
 */
export function judgeAbandoned(steps: readonly StepRecord[]): Judgement<Label> {
  const setup = stepOf(steps, TAGS.setup);
  if (!answered(setup) || setup.error || typeof valueOf(setup, 'schema') !== 'string') {
    return {
      outcome: null,
      facts: {},
      reason: `the run's table could not be created (the check needs CREATE on the first schema of search_path): ${errorText(setup) ?? 'no schema'}`,
    };
  }
  const begin = stepOf(steps, TAGS.begin);
  if (refused(begin))
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(begin) },
      reason: `BEGIN was refused: ${errorText(begin)}`,
    };
  const insert = stepOf(steps, TAGS.insert);
  const xid = valueOf(insert, 'xid');
  const started = valueOf(insert, 'started');
  if (
    !answered(insert) ||
    insert.error ||
    insert.pid === null ||
    typeof xid !== 'string' ||
    typeof started !== 'string'
  ) {
    return {
      outcome: null,
      facts: {},
      reason: `A's INSERT did not run inside a transaction: ${errorText(insert) ?? 'no pid or transaction id'}`,
    };
  }
  if (!stepOf(steps, TAGS.abandon))
    return { outcome: null, facts: { aBackend: insert.pid }, reason: "A's socket was never destroyed" };
  const b1 = insert.pid;
  const inside = (s: StepRecord): boolean =>
    valueOf(s, 'xid') === xid || valueOf(s, 'started') === started || s.notices.some((n) => n.code === '25001');
  const onB1 = [...stepsOf(steps, LANDING_TAGS.observe), ...stepsOf(steps, TAGS.verify)].filter(
    (s) => s.pid === b1 && answered(s) && !s.error,
  );
  const clean = stepsOf(steps, TAGS.verify).filter((s) => answered(s) && !s.error && s.pid !== null && !inside(s));
  const last = clean[clean.length - 1];
  const committed = numberOf(last, 'committed');
  const oldState = valueOf(last, 'old_state');
  const facts: Facts = {
    aBackend: b1,
    aXid: xid,
    nextClientOnOldBackend: onB1.length > 0,
    nextClientInATransaction: onB1.some(inside),
    rowCommitted: committed === null ? null : committed > 0,
    backendClosed: last ? numberOf(last, 'old_alive') === 0 : null,
    oldBackendState: typeof oldState === 'string' ? oldState : null,
  };
  const heir = onB1.find(inside);
  if (heir)
    return {
      outcome: 'inherited',
      facts,
      reason: `${heir.session} on backend ${b1} found itself inside A's transaction ${xid}${numberOf(heir, 'seen') ? ", A's uncommitted row visible" : ''}`,
    };
  if (committed === null)
    return {
      outcome: null,
      facts,
      reason: `nobody could read what was committed from outside A's transaction: ${errorText(last) ?? 'no verify step'}`,
    };
  if (committed > 0)
    return { outcome: 'inherited', facts, reason: "A's row was committed although A never sent COMMIT" };
  if (onB1.length > 0)
    return {
      outcome: 'rolled-back',
      facts,
      reason: `nothing was committed, and the next client on backend ${b1} started clean`,
    };
  if (facts.backendClosed)
    return {
      outcome: 'rolled-back',
      facts,
      reason: `nothing was committed; backend ${b1} was closed, so no client can inherit A's transaction`,
    };
  if (oldState === 'idle' && valueOf(last, 'old_xid') === null)
    return {
      outcome: 'rolled-back',
      facts,
      reason: `nothing was committed; backend ${b1} is idle outside any transaction`,
    };
  return {
    outcome: null,
    facts,
    reason: `backend ${b1} is still ${String(oldState)} and no other client could be placed on it`,
  };
}
