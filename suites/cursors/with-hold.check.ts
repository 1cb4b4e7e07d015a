/**
 * cursors/with-hold: does a `WITH HOLD` cursor, which outlives the transaction that declared
 * it, stay with its client? Frameworks declare them to page through large results across
 * transactions (Django's server-side cursors, JDBC fetch sizes with autocommit).
 *
 *   A:  SELECT pg_backend_pid() AS pid; DECLARE <c> CURSOR WITH HOLD FOR SELECT generate_series(1, 3) AS v
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT count(*)::int AS visible FROM pg_cursors WHERE name = '<c>'
 *   A:  SELECT pg_backend_pid() AS pid; FETCH 1 FROM <c>           -- 34000 where it is missing
 *
 * A cursor belongs to the backend session: one the observer can list is one it could FETCH
 * from, reading A's rows (and one A's next DECLARE of that name would collide with).
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { numberOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';

export const withHold = defineCheck({
  id: 'cursors/with-hold',
  title: 'a WITH HOLD cursor stays with the client that declared it',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (WITH HOLD cursor: never in transaction pooling)'],
  summary: '`DECLARE ... WITH HOLD`, then `FETCH` in the next transaction',
  outcomes: stateOutcomes({
    leaked:
      'Declare cursors without WITH HOLD and fetch within the one transaction that declared them (or turn off server-side cursors, e.g. DISABLE_SERVER_SIDE_CURSORS in Django): a held cursor stays on the server connection, readable by the next client and missing for you.',
    lost: 'Fetch within the one transaction that declared the cursor: held cursors do not survive to your next transaction through this pooler.',
    pinned: 'The pooler pins clients that hold cursors; fetch within one transaction to keep multiplexing.',
    rejected: 'The pooler refuses WITH HOLD cursors: fetch within one transaction.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'cursor WITH HOLD',
    consequence: 'FETCH in a later transaction finds no cursor',
    priority: 70,
    claims: { statements: { state: ['DECLARE WITH HOLD'] } },
  },
  async scenario(scn) {
    const c = markersFor(scn.ctx.runId, this.id).cursorName;
    await runStateScenario(scn, {
      create: `DECLARE ${c} CURSOR WITH HOLD FOR SELECT generate_series(1, 3) AS v`,
      observe: [`SELECT count(*)::int AS visible FROM pg_cursors WHERE name = '${c}'`],
      readback: `FETCH 1 FROM ${c}`,
      // CLOSE in PL/pgSQL means its own cursor variables; the SQL command needs EXECUTE.
      cleanup: `IF EXISTS (SELECT 1 FROM pg_cursors WHERE name = '${c}') THEN EXECUTE 'CLOSE ${c}'; END IF;`,
    });
  },
  judge(steps, discovery) {
    return judgeState(steps, discovery, {
      seenByOther: (take) => {
        const n = numberOf(take, 'visible');
        return n === null ? null : n > 0;
      },
      keptByA: (readback) => (readback.error?.code === '34000' ? false : numberOf(readback, 'v') === 1 ? true : null),
      show: (step) =>
        step.tag === LANDING_TAGS.readback
          ? step.error
            ? `FETCH: ${step.error.code ?? ''} ${step.error.message}`
            : `FETCH gave v = ${String(numberOf(step, 'v'))}`
          : `${String(numberOf(step, 'visible'))} cursor(s) named like A's`,
    });
  },
});
