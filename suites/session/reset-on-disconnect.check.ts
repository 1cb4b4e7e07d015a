/**
 * session/reset-on-disconnect: when a client leaves politely, does the next client on its
 * backend start clean? This is what session pooling's reset query (PgBouncer's DISCARD ALL,
 * pgpool-II's reset_query_list) promises; transaction pooling runs no reset by default.
 *
 *   A:  SELECT pg_backend_pid() AS pid; SET statement_timeout = '<marker>';
 *       SET app.tenant_id = '<marker>'; CREATE TEMP TABLE <t> (v int);
 *       SELECT pg_advisory_lock(<ns>, <k>); LISTEN <ch>; PREPARE <p> AS SELECT 1;
 *       DECLARE <c> CURSOR WITH HOLD FOR SELECT 1                               -- backend b1
 *   A:  (disconnects: Terminate, socket closed)
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid; <the sweep's inspection of this run's state>
 *       -- candidates until one lands on b1; it cleans up there
 *   P:  (only if nobody could land on b1) SELECT count(*) FROM pg_stat_activity WHERE pid = b1,
 *       repeated within the wait bound until the backend is gone
 *
 * Direct Postgres ends the backend with the client, so no client can ever land on it: that is
 * `reset` by construction, and the record proves it by the backend's absence from
 * pg_stat_activity rather than assuming it.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { errorText, numberOf, stepOf, stepsOf } from '../../engine/record/step-reading.js';
import { LOCK_NAMESPACE, markersFor } from '../../engine/record/markers.js';
import { dismiss, landingHoldMs } from '../../engine/steering/holders.js';
import { awaitBackendGone } from '../../engine/steering/backend-gone.js';
import { landOn } from '../../engine/steering/land-on.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import { cleanupSql, inspectionSql } from '../../engine/sweep/visit-sql.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  disconnect: 'A.disconnect',
  gone: 'observe.gone',
} as const;

/** The inspection columns for the state A leaves, and what each one is called in evidence. */
const KINDS: Record<string, string> = {
  timeout_marker: 'statement_timeout',
  guc_marker: 'app.tenant_id',
  temp_tables: 'temp table',
  locks: 'advisory lock',
  listens: 'LISTEN',
  prepared: 'prepared statement',
  cursors: 'WITH HOLD cursor',
};

/** The check's labels, declared before it so that its judge, written apart, returns only these. */
const OUTCOMES = {
  reset: {
    means: "a client on the departed client's backend found none of its state, or that backend is gone",
  },
  leaked: {
    means: 'a client on that backend found state the departed client left behind',
    advice:
      "The pooler hands a departed client's backend on with its state: in transaction pooling keep all state transaction-scoped (SET LOCAL, ON COMMIT DROP, pg_advisory_xact_lock); in session pooling set server_reset_query = DISCARD ALL.",
  },
} satisfies Record<string, OutcomeInfo>;

/** What the judge may return: the labels above. */
type Label = keyof typeof OUTCOMES;

export const resetOnDisconnect = defineCheck({
  id: 'session/reset-on-disconnect',
  title: 'the next client on a backend starts clean after a client disconnects',
  severity: 'security',
  docs: [
    'https://www.pgbouncer.org/config.html#server_reset_query (DISCARD ALL, run in session pooling only unless server_reset_query_always)',
    'https://www.pgpool.net/docs/latest/en/html/runtime-config-connection-pooling.html (reset_query_list)',
  ],
  summary: 'a client sets state and disconnects: does the next client on that backend start clean',
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  async scenario(scn) {
    const { runId } = scn.ctx;
    const m = markersFor(runId, this.id);
    const a = await scn.open('A');
    const created = await a.run(
      LANDING_TAGS.create,
      [
        'SELECT pg_backend_pid() AS pid',
        `SET statement_timeout = '${m.statementTimeout}'`,
        `SET app.tenant_id = '${m.tag}'`,
        `CREATE TEMP TABLE ${m.tempTable} (v int)`,
        `SELECT pg_advisory_lock(${LOCK_NAMESPACE}, ${m.lockKey}) IS NOT NULL AS locked`,
        `LISTEN ${m.channel}`,
        `PREPARE ${m.preparedName} AS SELECT 1`,
        `DECLARE ${m.cursorName} CURSOR WITH HOLD FOR SELECT 1`,
      ].join('; '),
    );
    await a.close();
    scn.note('A', TAGS.disconnect, '(disconnect: Terminate, socket closed)');
    if (created.error || created.pid === null) return;
    const b1 = created.pid;
    const landing = await landOn(scn, b1, {
      statements: [inspectionSql(runId, [this.id]), cleanupBlock(cleanupSql(runId, [this.id]), b1)],
      releaseBy: 'wait',
      holdMs: landingHoldMs(scn.discovery),
    });
    await dismiss([landing.observer, ...landing.others]);
    if (landing.observer) return;
    // Nobody could be placed on b1: find out whether it still exists at all.
    await awaitBackendGone(scn, 'P', TAGS.gone, b1);
  },
  judge: judgeResetOnDisconnect,
  evidence: (j) => j.reason,
});

/**
 * - A's state was not created (error, no pid) or A's disconnect is not recorded: inconclusive.
 * - A client landed on b1 after A left: it found any of A's state: `leaked` (the facts say
 *   which); none, with every reading present: `reset`.
 * - Nobody landed on b1, and pg_stat_activity no longer lists it: `reset` (the backend ended
 *   with its client). Still listed, or not asked: inconclusive.
 */
export function judgeResetOnDisconnect(steps: readonly StepRecord[]): Judgement<Label> {
  const create = stepOf(steps, LANDING_TAGS.create);
  if (!create || create.error || create.pid === null)
    return { outcome: null, facts: {}, reason: `A could not create its state: ${errorText(create) ?? 'no pid'}` };
  const b1 = create.pid;
  const left = stepOf(steps, TAGS.disconnect);
  if (!left || left.error)
    return { outcome: null, facts: { aBackend: b1 }, reason: "A's disconnect is not in the record" };
  const observer = stepsOf(steps, LANDING_TAGS.observe).find((t) => t.pid === b1 && !t.timedOut && t.seq > left.seq);
  const gone = stepsOf(steps, TAGS.gone).at(-1);
  const facts: Judgement['facts'] = {
    aBackend: b1,
    otherOnOldBackend: observer !== undefined,
    backendEnded: gone ? numberOf(gone, 'alive') === 0 : null,
  };
  if (observer) {
    const found: string[] = [];
    for (const [column, kind] of Object.entries(KINDS)) {
      const n = numberOf(observer, column);
      if (n === null)
        return {
          outcome: null,
          facts,
          reason: `the client on backend ${b1} could not read the ${kind}: ${errorText(observer) ?? 'no value'}`,
        };
      facts[column] = n > 0;
      if (n > 0) found.push(kind);
    }
    facts.leftBehind = found.join(', ') || null;
    if (found.length > 0)
      return {
        outcome: 'leaked',
        facts,
        reason: `${observer.session}, the next client on backend ${b1} after A left, found A's ${found.join(', ')}`,
      };
    return {
      outcome: 'reset',
      facts,
      reason: `${observer.session}, the next client on backend ${b1} after A left, found none of A's state`,
    };
  }
  if (facts.backendEnded === true)
    return {
      outcome: 'reset',
      facts,
      reason: `backend ${b1} ended with A's connection: no other client can inherit its state`,
    };
  return {
    outcome: null,
    facts,
    reason: `no client could be placed on backend ${b1} after A left, and it ${gone ? 'still exists' : 'was not looked for'}`,
  };
}
