/**
 * session/lock-timeout-leak: does a migration's `SET lock_timeout` stay with its client?
 *
 *   A:  SELECT pg_backend_pid() AS pid; SET lock_timeout = '<marker>'             -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT current_setting('lock_timeout') AS seen
 *   A:  SELECT pg_backend_pid() AS pid, current_setting('lock_timeout') AS mine   -- elsewhere
 *
 * Migration tools set a short lock_timeout before DDL so that a blocked ALTER TABLE gives up
 * instead of queueing every query behind it. Through transaction pooling the setting stays on
 * the server connection: the next application client there gets 55P03 "canceling statement due
 * to lock timeout" on any ordinary lock wait. The marker is an hour or more, unique per run:
 * harmless to whoever inherits it. The sweep recognises it (engine/sweep/visit-sql.ts MARKED_TIMEOUTS).
 */
import { defineCheck } from '../../engine/execute/check.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { markerOf, valueOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { StepRecord } from '../../engine/types.js';

export const lockTimeoutLeak = defineCheck({
  id: 'session/lock-timeout-leak',
  title: "a migration's SET lock_timeout stays with the client that ran it",
  summary: '`SET lock_timeout`, as migration tools send before DDL; does the next client on that backend inherit it',
  severity: 'availability',
  docs: [
    'pgbouncer/pgbouncer.github.io@1ce5540a:features.md (SET/RESET: Never in transaction pooling)',
    'https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-LOCK-TIMEOUT',
  ],
  outcomes: stateOutcomes({
    leaked:
      "Set lock_timeout with SET LOCAL inside the migration's transaction (or run migrations on a direct connection): a plain SET stays on the server connection, and the next client's lock waits fail with 55P03.",
    lost: 'Set lock_timeout with SET LOCAL inside each transaction that needs it: the pooler resets session settings between transactions, so the DDL runs without the guard.',
    pinned: 'The pooler pins the client after SET, losing multiplexing for it: prefer SET LOCAL lock_timeout.',
    rejected: 'The pooler refuses SET: use SET LOCAL lock_timeout inside the transaction.',
  }),
  uses: STATE_SCENARIO,
  async scenario(scn) {
    const marker = markersFor(scn.ctx.runId, this.id).lockTimeout;
    scn.recordMarkers({ lock_timeout: marker });
    await runStateScenario(scn, {
      create: `SET lock_timeout = '${marker}'`,
      observe: [`SELECT current_setting('lock_timeout') AS seen`],
      readback: `SELECT current_setting('lock_timeout') AS mine`,
      cleanup: `IF current_setting('lock_timeout') = '${marker}' THEN RESET lock_timeout; END IF;`,
    });
  },
  judge(steps, discovery) {
    const marker = markerOf(steps, 'lock_timeout');
    const holds = (step: StepRecord, column: string): boolean | null => {
      const v = valueOf(step, column);
      return typeof v === 'string' && marker !== '' ? v === marker : null;
    };
    return judgeState(steps, discovery, {
      seenByOther: (take) => holds(take, 'seen'),
      keptByA: (readback) => holds(readback, 'mine'),
      show: (step) => `lock_timeout = ${String(valueOf(step, 'seen') ?? valueOf(step, 'mine'))}`,
    });
  },
});
