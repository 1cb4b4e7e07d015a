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
 *
 * The scenario runs twice: once with observers that send an application_name at startup, as
 * pooltest's sessions do, and once (phase `nameless:`) with observers that send none, as
 * node-postgres and many drivers do by default. Some poolers treat the two differently:
 * PgBouncer re-applies a tracked value only where the client has one, so a client that never
 * set a name is shown A's. That is `leaked` even when the named observer was safe; the facts
 * say what each observer saw (`named.*`, `nameless.*`).
 */
import { defineCheck } from '../../engine/check.js';
import { phaseSteps, worstOf } from '../../engine/judging/phases.js';
import { markerOf, stepOf, valueOf } from '../../engine/judging/record.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { stateOutcomes } from '../../engine/judging/state-outcomes.js';
import { markersFor } from '../../engine/markers.js';
import { runStateScenario } from '../../engine/steering/state-scenario.js';
import type { Discovery, Judgement, StepRecord } from '../../engine/types.js';

/** A zone almost nobody runs in (UTC+12:45), so seeing it means seeing A's SET. */
const ZONE = 'Pacific/Chatham';

/** The phase whose observers send no application_name at startup. */
const NAMELESS = 'nameless';
const WORST_FIRST = ['leaked', 'lost', 'rejected', 'pinned', 'tracked', 'session'];

export const trackedParameter = defineCheck({
  id: 'session/tracked-parameter',
  title: 'SET application_name and TimeZone follow their client and nobody else',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (startup parameters tracked in every mode)'],
  summary:
    '`SET application_name` and `TimeZone`: do they follow the client; does anyone else get them, observed both by clients that send an application_name at startup and by clients that send none',
  outcomes: stateOutcomes({
    leaked:
      'Set application_name and TimeZone as connection (startup) parameters, not with SET, or use a pooler that tracks them.',
    lost: 'The pooler drops reported parameters between transactions: pass them as startup parameters.',
    pinned: 'The pooler pins clients that SET parameters; pass them as startup parameters instead.',
    rejected: 'The pooler refuses SET of these parameters; pass them as startup parameters.',
  }),
  restsOn: [{ create: 'A.create', observe: 'observe.take' }],
  audit: {
    statement: 'SET of a parameter poolers usually track (application_name, TimeZone...)',
    consequence:
      'PgBouncer replays client_encoding, DateStyle, TimeZone, IntervalStyle, standard_conforming_strings, application_name',
    priority: 110,
    claims: {
      // The parameters the server reports to the client (GUC_REPORT) that PgBouncer, PgCat and
      // Odyssey replay when a client moves to another backend.
      settings: {
        names: [
          'application_name',
          'client_encoding',
          'datestyle',
          'timezone',
          'intervalstyle',
          'standard_conforming_strings',
        ],
      },
    },
  },
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    const probe = {
      create: `SET application_name = '${tag}'; SET TimeZone = '${ZONE}'`,
      observe: [`SELECT current_setting('application_name') AS seen_app, current_setting('TimeZone') AS seen_tz`],
      readback: `SELECT current_setting('application_name') AS mine_app, current_setting('TimeZone') AS mine_tz`,
      cleanup: `IF current_setting('application_name') = '${tag}' THEN RESET application_name; END IF; IF current_setting('TimeZone') = '${ZONE}' THEN RESET TimeZone; END IF;`,
    };
    // Named observers first, under the plain tags (as recorded before the nameless phase).
    scn.recordMarkers({ application_name: tag, timezone: ZONE });
    await runStateScenario(scn, probe);
    // The nameless observer also reads the server's own default, to tell "nothing of A's"
    // from "another client's name" (see judgeObserver).
    const observeDefault = `SELECT current_setting('application_name') AS seen_app, current_setting('TimeZone') AS seen_tz, (SELECT reset_val FROM pg_settings WHERE name = 'application_name') AS default_app`;
    scn.recordMarkers({ application_name: tag, timezone: ZONE }, NAMELESS);
    await runStateScenario(
      scn,
      { ...probe, observe: [observeDefault] },
      { phase: NAMELESS, observerApplicationName: '' },
    );
  },
  judge(steps, discovery) {
    const named = judgeObserver(
      steps.filter((s) => !s.tag.startsWith(`${NAMELESS}:`)),
      discovery,
    );
    const nameless = phaseSteps(steps, NAMELESS);
    // Logs recorded before the nameless observer existed are judged as they were.
    if (nameless.length === 0) return named;
    return worstOf(
      [
        { phase: 'named', judgement: named },
        { phase: NAMELESS, judgement: judgeObserver(nameless, discovery, true) },
      ],
      WORST_FIRST,
    );
  },
});

/**
 * One phase: did the observer on A's old backend see A's values, and did A keep them? An
 * observer that sends no name shows what the server connection had last, so when it shows
 * neither A's name nor the server's default, a third client (with a name of its own) used
 * that backend in between, under other traffic: nothing can be said of A's name then.
 */
function judgeObserver(steps: readonly StepRecord[], discovery: Discovery, nameless = false): Judgement {
  const tag = markerOf(steps, 'application_name');
  const read = (step: StepRecord, prefix: string, any: boolean): boolean | null => {
    const app = valueOf(step, `${prefix}_app`);
    const tz = valueOf(step, `${prefix}_tz`);
    if (typeof app !== 'string' || typeof tz !== 'string' || tag === '') return null;
    return any ? app === tag || tz === ZONE : app === tag && tz === ZONE;
  };
  const judgement = judgeState(steps, discovery, {
    seenByOther: (take) => read(take, 'seen', true),
    keptByA: (readback) => read(readback, 'mine', false),
    show: (step) =>
      `application_name = ${String(valueOf(step, 'seen_app') ?? valueOf(step, 'mine_app'))}, TimeZone = ${String(valueOf(step, 'seen_tz') ?? valueOf(step, 'mine_tz'))}`,
  });
  // What the observer on A's old backend was shown, as facts: the values themselves.
  const observer = steps.find(
    (s) => s.tag === 'observe.take' && s.pid !== null && s.pid === stepOf(steps, 'A.create')?.pid && !s.timedOut,
  );
  const seen = (column: string): string | null => {
    const v = valueOf(observer, column);
    return typeof v === 'string' ? v : null;
  };
  const facts = { ...judgement.facts, observerApplicationName: seen('seen_app'), observerTimeZone: seen('seen_tz') };
  const app = seen('seen_app');
  if (
    nameless &&
    judgement.outcome !== 'leaked' &&
    app !== null &&
    app !== tag &&
    app !== (seen('default_app') ?? '')
  ) {
    return {
      outcome: null,
      facts,
      reason: `${observer?.session ?? 'the observer'} on A's old backend was shown application_name = ${app}, another client's: a third client used that backend in between, so what a client without a name is shown of A's is not known`,
    };
  }
  return { ...judgement, facts };
}
