/**
 * session/set-leak: does a plain `SET statement_timeout` stay with the client that ran it?
 *
 *   A:  SELECT pg_backend_pid() AS pid; SET statement_timeout = '<marker>'        -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                  -- lands on b1
 *       SELECT current_setting('statement_timeout') AS seen
 *   A:  SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS mine  -- elsewhere
 *
 * The marker is about an hour, unique per run: harmless to whoever inherits it, and
 * recognisable when they do. Cleanup resets it only where it still holds the marker.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markerOf, valueOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';

export const setLeak = defineCheck({
  id: 'session/set-leak',
  title: 'SET statement_timeout stays with the client that ran it',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (SET/RESET: never in transaction pooling)'],
  summary: '`SET statement_timeout`; does the client keep it; does the next client on its backend see it',
  outcomes: stateOutcomes({
    leaked:
      'Use SET LOCAL inside the transaction (or ALTER ROLE ... SET for a per-role default): a plain SET stays on the server connection and the next client inherits it.',
    lost: 'Use SET LOCAL inside each transaction, or a per-role default with ALTER ROLE ... SET: the pooler resets session settings between transactions.',
    tracked: 'The pooler replays this setting per client; no change needed for it.',
    pinned: 'The pooler pins the client after SET, losing multiplexing for it: prefer SET LOCAL.',
    rejected: 'The pooler refuses SET: use SET LOCAL inside a transaction.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'SET / RESET of a setting for the session',
    consequence: 'the next client on that backend inherits it',
    priority: 100,
    claims: { settings: { anyOther: true }, statements: { cleanup: ['RESET ALL'] } },
  },
  async scenario(scn) {
    const m = markersFor(scn.ctx.runId, this.id);
    scn.recordMarkers({ statement_timeout: m.statementTimeout });
    await runStateScenario(scn, {
      create: `SET statement_timeout = '${m.statementTimeout}'`,
      observe: [`SELECT current_setting('statement_timeout') AS seen`],
      readback: `SELECT current_setting('statement_timeout') AS mine`,
      cleanup: `IF current_setting('statement_timeout') = '${m.statementTimeout}' THEN RESET statement_timeout; END IF;`,
    });
  },
  judge(steps, discovery) {
    const marker = markerOf(steps, 'statement_timeout');
    return judgeState(steps, discovery, {
      seenByOther: (take) => readSetting(take, 'seen', marker),
      keptByA: (readback) => readSetting(readback, 'mine', marker),
      show: (step) => `statement_timeout = ${String(valueOf(step, 'seen') ?? valueOf(step, 'mine'))}`,
    });
  },
});

function readSetting(step: Parameters<typeof valueOf>[0], column: string, marker: string): boolean | null {
  const v = valueOf(step, column);
  return typeof v === 'string' && marker !== '' ? v === marker : null;
}
