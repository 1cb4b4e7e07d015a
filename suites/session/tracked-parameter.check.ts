/**
 * session/tracked-parameter: does `SET application_name` (and `SET TimeZone`), parameters the
 * server reports back to the client, follow the client - and does anyone else end up with them?
 *
 *   A:  SELECT pg_backend_pid() AS pid; SET application_name = '<tag>'; SET TimeZone = 'Pacific/Chatham'
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                 -- lands on b1
 *       SELECT current_setting('application_name') AS seen_app, current_setting('TimeZone') AS seen_tz
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_setting('application_name') AS mine_app,
 *       current_setting('TimeZone') AS mine_tz
 *
 * Poolers that track these (PgBouncer's fixed list) re-apply each client's values whenever it
 * gets a server connection, so A keeps them on another backend and the observer gets its own.
 */
import { defineCheck } from '../../engine/check.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { markerOf, valueOf } from '../../engine/judging/record.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { markersFor } from '../../engine/markers.js';
import { runStateScenario } from '../../engine/steering/state-scenario.js';
import type { StepRecord } from '../../engine/types.js';

/** A zone almost nobody runs in (UTC+12:45), so seeing it means seeing A's SET. */
const ZONE = 'Pacific/Chatham';

export const trackedParameter = defineCheck({
  id: 'session/tracked-parameter',
  title: 'SET application_name and TimeZone follow their client and nobody else',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (startup parameters tracked in every mode)'],
  summary: '`SET application_name` and `TimeZone`: do they follow the client; does anyone else get them',
  outcomes: stateOutcomes({
    leaked: 'Set application_name and TimeZone as connection (startup) parameters, not with SET, or use a pooler that tracks them.',
    lost: 'The pooler drops reported parameters between transactions: pass them as startup parameters.',
    pinned: 'The pooler pins clients that SET parameters; pass them as startup parameters instead.',
    rejected: 'The pooler refuses SET of these parameters; pass them as startup parameters.',
  }),
  restsOn: [{ create: 'A.create', observe: 'observe.take' }],
  audit: { statement: 'SET of a parameter poolers usually track (application_name, TimeZone...)', consequence: 'PgBouncer replays client_encoding, DateStyle, TimeZone, IntervalStyle, standard_conforming_strings, application_name', priority: 110 },
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    scn.recordMarkers({ application_name: tag, timezone: ZONE });
    await runStateScenario(scn, {
      create: `SET application_name = '${tag}'; SET TimeZone = '${ZONE}'`,
      observe: [`SELECT current_setting('application_name') AS seen_app, current_setting('TimeZone') AS seen_tz`],
      readback: `SELECT current_setting('application_name') AS mine_app, current_setting('TimeZone') AS mine_tz`,
      cleanup: `IF current_setting('application_name') = '${tag}' THEN RESET application_name; END IF; IF current_setting('TimeZone') = '${ZONE}' THEN RESET TimeZone; END IF;`,
    });
  },
  judge(steps, discovery) {
    const tag = markerOf(steps, 'application_name');
    const read = (step: StepRecord, prefix: string, any: boolean): boolean | null => {
      const app = valueOf(step, `${prefix}_app`);
      const tz = valueOf(step, `${prefix}_tz`);
      if (typeof app !== 'string' || typeof tz !== 'string' || tag === '') return null;
      return any ? app === tag || tz === ZONE : app === tag && tz === ZONE;
    };
    return judgeState(steps, discovery, {
      seenByOther: (take) => read(take, 'seen', true),
      keptByA: (readback) => read(readback, 'mine', false),
      show: (step) => `application_name = ${String(valueOf(step, 'seen_app') ?? valueOf(step, 'mine_app'))}, TimeZone = ${String(valueOf(step, 'seen_tz') ?? valueOf(step, 'mine_tz'))}`,
    });
  },
});
