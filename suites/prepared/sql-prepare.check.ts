/**
 * prepared/sql-prepare: does an SQL-level prepared statement stay with its client?
 *
 *   A:  SELECT pg_backend_pid() AS pid; PREPARE <p> AS SELECT 42 AS answer          -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                    -- lands on b1
 *       SELECT count(*)::int AS visible FROM pg_prepared_statements WHERE name = '<p>'
 *   A:  SELECT pg_backend_pid() AS pid; EXECUTE <p>                 -- 26000 where it is missing
 *
 * Prepared statements belong to the backend session, so a statement visible in the observer's
 * pg_prepared_statements is one it could EXECUTE (and one A's next PREPARE would collide with).
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { numberOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

export const sqlPrepare = defineCheck({
  id: 'prepared/sql-prepare',
  title: 'an SQL PREPARE stays with the client that prepared it',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (PREPARE / DEALLOCATE: never in transaction pooling)'],
  summary: '`PREPARE`, then `EXECUTE` in the next transaction; can the next client see it',
  outcomes: stateOutcomes({
    leaked:
      'Do not use SQL PREPARE/EXECUTE through a transaction pooler: use protocol-level prepared statements with a pooler that tracks them (PgBouncer >= 1.21 with max_prepared_statements > 0).',
    lost: 'SQL PREPARE does not survive the transaction: use protocol-level prepared statements (PgBouncer max_prepared_statements > 0) or unprepared queries.',
    pinned: 'The pooler pins clients that PREPARE: prefer protocol-level prepared statements.',
    rejected: 'The pooler refuses SQL PREPARE: use protocol-level prepared statements.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'SQL-level PREPARE / EXECUTE / DEALLOCATE',
    consequence: 'EXECUTE fails with "prepared statement does not exist" (26000)',
    priority: 80,
    claims: { statements: { state: ['PREPARE', 'EXECUTE'], cleanup: ['DEALLOCATE'] } },
  },
  async scenario(scn) {
    const p = markersFor(scn.ctx.runId, this.id).preparedName;
    await runStateScenario(scn, {
      create: `PREPARE ${p} AS SELECT 42 AS answer`,
      observe: [`SELECT count(*)::int AS visible FROM pg_prepared_statements WHERE name = '${p}'`],
      readback: `EXECUTE ${p}`,
      cleanup: `IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = '${p}') THEN DEALLOCATE ${p}; END IF;`,
    });
  },
  judge(steps, discovery) {
    return judgeState(steps, discovery, {
      seenByOther: (take) => {
        const n = numberOf(take, 'visible');
        return n === null ? null : n > 0;
      },
      keptByA: (readback) =>
        readback.error?.code === '26000' ? false : numberOf(readback, 'answer') === 42 ? true : null,
      show: (step) =>
        step.tag === LANDING_TAGS.readback
          ? step.error
            ? `EXECUTE: ${step.error.code} ${step.error.message}`
            : 'EXECUTE worked'
          : `statement ${numberOf(step, 'visible') ? 'present' : 'absent'} in pg_prepared_statements`,
    });
  },
});
