/**
 * session/custom-guc-leak: does a custom setting such as `app.tenant_id` - the row-level
 * security tenant pattern, where policies read `current_setting('app.tenant_id')` - stay with
 * the client that set it? Both ways applications set it are tried, one after the other:
 *
 *   phase `set`:
 *   A:  SELECT pg_backend_pid() AS pid; SET app.tenant_id = '<marker>'              -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                   -- lands on b1
 *       SELECT coalesce(current_setting('app.tenant_id', true), '') AS seen
 *   A:  SELECT pg_backend_pid() AS pid; SELECT coalesce(current_setting('app.tenant_id', true), '') AS mine
 *
 *   phase `set_config`: the same, with
 *   A:  SELECT pg_backend_pid() AS pid; SELECT pg_catalog.set_config('app.tenant_id', '<marker2>', false)
 *
 * Poolers that watch for the `SET` command tag (PgCat) miss `set_config`, and poolers that parse
 * SQL may miss either, so the two are separate phases and the outcome is the worse one. A
 * leaked tenant id means the next client reads and writes another tenant's rows.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { STATE_WORST_FIRST, stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { phaseSteps, worstOf } from '../../engine/judging/phases.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markerOf, valueOf } from '../../engine/record/step-reading.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { StepRecord } from '../../engine/types.js';

const READ = `coalesce(current_setting('app.tenant_id', true), '')`;

export const customGucLeak = defineCheck({
  id: 'session/custom-guc-leak',
  title: 'SET app.tenant_id (and set_config) stays with the client that set it',
  severity: 'security',
  docs: [
    'https://www.pgbouncer.org/features.html (SET/RESET: never in transaction pooling)',
    'https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADMIN-SET (set_config is_local)',
  ],
  summary: "`SET app.tenant_id` and `set_config('app.tenant_id', ..., false)`, the row-level-security tenant pattern",
  outcomes: stateOutcomes({
    leaked:
      "Set the tenant inside each transaction with SET LOCAL app.tenant_id or set_config('app.tenant_id', ..., true): a session-level value stays on the server connection and the next client runs as your tenant.",
    lost: 'Set the tenant inside each transaction with SET LOCAL or set_config(..., true): the pooler drops session-level settings between transactions, so row-level security sees no tenant.',
    tracked: 'The pooler replays custom settings per client; no change needed for it.',
    pinned:
      'The pooler pins clients that change settings, losing multiplexing: prefer SET LOCAL or set_config(..., true).',
    rejected:
      'The pooler refuses session-level settings: use SET LOCAL or set_config(..., true) inside the transaction.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'custom setting (a dotted name, such as app.tenant_id) set for the session',
    consequence: 'row-level security keyed on it sees another tenant',
    priority: 20,
    claims: { settings: { dotted: true } },
  },
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    for (const [phase, create, value] of forms(tag)) {
      scn.recordMarkers({ value }, phase);
      await runStateScenario(
        scn,
        {
          create,
          observe: [`SELECT ${READ} AS seen`],
          readback: `SELECT ${READ} AS mine`,
          cleanup: `IF ${READ} = '${value}' THEN RESET app.tenant_id; END IF;`,
        },
        { phase },
      );
    }
  },
  judge(steps, discovery) {
    const phases = ['set', 'set_config'].map((phase) => {
      const own = phaseSteps(steps, phase);
      const value = markerOf(own, 'value');
      const read = (step: StepRecord, column: string): boolean | null => {
        const v = valueOf(step, column);
        return typeof v === 'string' && value !== '' ? v === value : null;
      };
      return {
        phase,
        judgement: judgeState(own, discovery, { seenByOther: (t) => read(t, 'seen'), keptByA: (r) => read(r, 'mine') }),
      };
    });
    return worstOf(phases, STATE_WORST_FIRST);
  },
});

/** The two ways to set it, each with its own value so the phases cannot see each other's state. */
function forms(tag: string): Array<[phase: string, create: string, value: string]> {
  return [
    ['set', `SET app.tenant_id = '${tag}'`, tag],
    ['set_config', `SELECT pg_catalog.set_config('app.tenant_id', '${tag}-fn', false) AS configured`, `${tag}-fn`],
  ];
}
