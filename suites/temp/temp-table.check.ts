/**
 * temp/temp-table: does a plain temporary table stay with the client that created it?
 *
 *   A:  SELECT pg_backend_pid() AS pid; CREATE TEMP TABLE <t> (v int); INSERT INTO <t> VALUES (1)
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT to_regclass('pg_temp.<t>') IS NOT NULL AS seen
 *   A:  SELECT pg_backend_pid() AS pid; SELECT count(*)::int AS n FROM <t>        -- 42P01 if gone
 *
 * `pg_temp` always names the temp schema of the backend running the query, so the observer's
 * probe can only find A's table if it sits on A's old backend.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { boolOf, numberOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

export const tempTable = defineCheck({
  id: 'temp/temp-table',
  title: 'a temporary table stays with the client that created it',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (PRESERVE/DELETE ROWS temp tables: never in transaction pooling)'],
  summary: 'a plain temp table: can its creator still read it; can the next client',
  outcomes: stateOutcomes({
    leaked:
      'Create temp tables with ON COMMIT DROP inside the transaction that uses them: a plain temp table stays on the server connection, visible to the next client and missing for you.',
    lost: 'Create temp tables with ON COMMIT DROP inside the transaction that uses them: they do not survive to your next transaction.',
    pinned: 'The pooler pins clients that create temp tables; use ON COMMIT DROP to keep multiplexing.',
    rejected: 'The pooler refuses temp tables; use ON COMMIT DROP or a regular table.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'temporary table kept after the transaction',
    consequence: 'the next transaction may not find it, or another client may',
    priority: 60,
    claims: { statements: { state: ['CREATE TEMP'], cleanup: ['DISCARD TEMP'] } },
  },
  async scenario(scn) {
    const t = markersFor(scn.ctx.runId, this.id).tempTable;
    await runStateScenario(scn, {
      create: `CREATE TEMP TABLE ${t} (v int); INSERT INTO ${t} VALUES (1)`,
      observe: [`SELECT to_regclass('pg_temp.${t}') IS NOT NULL AS seen`],
      readback: `SELECT count(*)::int AS n FROM ${t}`,
      cleanup: `DROP TABLE IF EXISTS pg_temp.${t};`,
    });
  },
  judge(steps, discovery) {
    return judgeState(steps, discovery, {
      seenByOther: (take) => boolOf(take, 'seen'),
      keptByA: (readback) => (readback.error?.code === '42P01' ? false : numberOf(readback, 'n') === 1 ? true : null),
      show: (step) =>
        step.tag === LANDING_TAGS.readback
          ? step.error
            ? `${step.error.code} ${step.error.message}`
            : 'table readable'
          : `table ${boolOf(step, 'seen') ? 'visible' : 'absent'}`,
    });
  },
});
