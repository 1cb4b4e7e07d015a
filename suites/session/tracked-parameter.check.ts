/**
 * session/tracked-parameter: do the parameters the server reports back to the client, which
 * poolers track or may track, follow the client that SET them - and does anyone else end up
 * with them? Each parameter is observed on its own: application_name, TimeZone, DateStyle,
 * IntervalStyle, client_encoding, standard_conforming_strings, default_transaction_read_only,
 * session_authorization (superuser logins only), and where the server reports them
 * scram_iterations (PostgreSQL 16 and later) and search_path (18 and later). Those are every
 * parameter PostgreSQL reports (GUC_REPORT) that a client can SET; the others it reports
 * (server_version, server_encoding, integer_datetimes, in_hot_standby, is_superuser) are not
 * settable, and is_superuser follows session_authorization.
 *
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_setting('default_transaction_read_only')
 *       AS before_read_only, current_setting('is_superuser') AS superuser;
 *       SET pooltest.role = '<tag>'; SET application_name = '<tag>'; SET TimeZone = 'Pacific/Chatham';
 *       SET DateStyle = 'SQL, DMY'; SET IntervalStyle = 'iso_8601'; SET client_encoding = 'LATIN1';
 *       SET standard_conforming_strings = 'off'; SET default_transaction_read_only = 'on'
 *       [; SET scram_iterations = '4097'] [; SET search_path = '<tag as a schema>'];
 *       DO $$ ... IF superuser THEN SET SESSION AUTHORIZATION pg_read_all_settings ... $$
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                                 -- lands on b1
 *       SELECT current_setting('application_name') AS seen_app, current_setting('TimeZone') AS seen_tz, ...
 *   A:  SELECT pg_backend_pid() AS pid; SELECT current_setting('application_name') AS mine_app, ...
 *
 * Poolers that track a parameter (PgBouncer's list) re-apply each client's value whenever it
 * gets a server connection, so A keeps it on another backend and the observer gets its own.
 * A parameter that cannot apply to this login (session_authorization without a superuser, a
 * default_transaction_read_only already on) is read before the SETs and has no outcome, with
 * the reason (`<parameter>.notApplicable`). `on` and a role name are no run's marker, so the
 * run's marker setting rides along (pooltest.role): the sweep resets those two where it finds it.
 *
 * The scenario runs twice: once with observers that send an application_name at startup, as
 * pooltest's sessions do, and once (phase `nameless:`) with observers that send none, as
 * node-postgres and many drivers do by default. Some poolers treat the two differently:
 * PgBouncer re-applies a tracked value only where the client has one, so a client that never
 * set a name is shown A's. node-postgres sends no other of these parameters at startup, so
 * neither observer sends them: both are the "client that did not send it" for those.
 *
 * Each parameter gets its own outcome (the worse of its two observers, facts
 * `<parameter>.outcome`, `<parameter>.named`, `<parameter>.nameless`); the check's outcome is
 * the worst of the parameters' (see INTERPRETING.md), so one leaking parameter makes it `leaked`
 * while the audit and watch join each finding with its own parameter's outcome.
 */
import { defineCheck } from '../../engine/execute/check.js';
import { phaseSteps, worstOf, type PhaseJudgement } from '../../engine/judging/phases.js';
import { markerOf, stepOf, valueOf } from '../../engine/record/step-reading.js';
import { judgeState } from '../../engine/judging/state-judge.js';
import { STATE_WORST_FIRST, stateOutcomes, type StateLabel } from '../../engine/judging/state-outcomes.js';
import { markersFor } from '../../engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '../../engine/steering/state-scenario.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../../engine/types.js';
import { LANDING_TAGS } from '../../engine/record/tags.js';
import { sparesAllowed } from '../../engine/steering/spare-session.js';
import {
  TRACKED_PARAMETERS,
  cleanupSql,
  markersOf,
  observedParameters,
  readList,
  setSql,
  shows,
  type TrackedParameterSpec,
} from './tracked-parameters.js';

/** The phase whose observers send no application_name at startup. */
const NAMELESS = 'nameless';
/** Parameters whose SET the audit and watch join with another check (see `claims`). */
const CLAIMED_ELSEWHERE = new Set(['search_path', 'session_authorization']);
/** Facts of the shared judge that are about one parameter, kept per parameter instead. */
const PER_PARAMETER_FACTS = new Set(['aKeptState', 'otherSawState']);

export const trackedParameter = defineCheck({
  id: 'session/tracked-parameter',
  title: 'SET of reported parameters (application_name, TimeZone, DateStyle...) follows its client and nobody else',
  severity: 'correctness',
  docs: ['https://www.pgbouncer.org/features.html (startup parameters tracked in every mode)'],
  summary:
    '`SET` of each parameter poolers track or may track (application_name, TimeZone, DateStyle, IntervalStyle, client_encoding, standard_conforming_strings, default_transaction_read_only, session_authorization for superuser logins; scram_iterations and search_path where the server reports them), each with its own outcome: does it follow the client; does anyone else get it, observed both by clients that send an application_name at startup and by clients that send none',
  outcomes: stateOutcomes({
    leaked:
      'Pass these parameters as connection (startup) parameters, or SET LOCAL them inside each transaction, instead of SET; or have the pooler track them (PgBouncer 1.20 and later: track_extra_parameters). Each parameter has its own outcome and, where it leaks, its own advice.',
    lost: 'The pooler drops reported parameters between transactions: pass them as startup parameters.',
    pinned: 'The pooler pins clients that SET parameters; pass them as startup parameters instead.',
    rejected: 'The pooler refuses SET of these parameters; pass them as startup parameters.',
  }),
  uses: STATE_SCENARIO,
  audit: {
    statement: 'SET of a parameter poolers usually track (application_name, TimeZone...)',
    consequence:
      'PgBouncer replays client_encoding, DateStyle, TimeZone, IntervalStyle, standard_conforming_strings, application_name for a client that has a value; default_transaction_read_only only where track_extra_parameters lists it',
    priority: 110,
    // Per parameter: the audit and watch join a SET of TimeZone with TimeZone's own outcome.
    perParameter: TRACKED_PARAMETERS.map((p) => p.key),
    parameterAdvice: Object.fromEntries(
      TRACKED_PARAMETERS.flatMap((p) => (p.leakAdvice ? [[p.key, p.leakAdvice]] : [])),
    ),
    claims: {
      // The parameters the server reports to the client (GUC_REPORT) that PgBouncer, PgCat and
      // Odyssey replay when a client moves to another backend. search_path stays with
      // session/search-path-leak, and session_authorization with session/role-leak (its
      // consequence is the role's: the next client runs as it), which the audit and watch join
      // their SETs with.
      settings: {
        names: TRACKED_PARAMETERS.filter((p) => !CLAIMED_ELSEWHERE.has(p.key)).map((p) => p.key),
      },
    },
  },
  async scenario(scn) {
    const tag = markersFor(scn.ctx.runId, this.id).tag;
    const params = observedParameters(scn.discovery);
    const probe = {
      create: setSql(params, tag),
      observe: [`SELECT ${readList(params, 'seen')}`],
      readback: `SELECT ${readList(params, 'mine')}`,
      cleanup: cleanupSql(params, tag),
    };
    // The nameless phase's candidates log in while the named phase runs, where an idle login
    // holds nothing (steering/spare-session.ts): at a distance a login is several round trips.
    if (sparesAllowed(scn.ctx)) scn.loginAhead(scn.discovery.poolSize ?? 2, '');
    // Named observers first, under the plain tags (as recorded before the nameless phase).
    scn.recordMarkers(markersOf(params, tag));
    await runStateScenario(scn, probe);
    // The nameless observer also reads the server's own default, to tell "nothing of A's"
    // from "another client's name" (see judgeObserver).
    const observeDefault = `SELECT ${readList(params, 'seen')}, (SELECT reset_val FROM pg_settings WHERE name = 'application_name') AS default_app`;
    scn.recordMarkers(markersOf(params, tag), NAMELESS);
    await runStateScenario(
      scn,
      { ...probe, observe: [observeDefault] },
      { phase: NAMELESS, observerApplicationName: '' },
    );
  },
  judge(steps, discovery) {
    const phases = [{ phase: 'named', steps: steps.filter((s) => !s.tag.startsWith(`${NAMELESS}:`)) }];
    const nameless = phaseSteps(steps, NAMELESS);
    // Logs recorded before the nameless observer existed are judged from the named one alone.
    if (nameless.length > 0) phases.push({ phase: NAMELESS, steps: nameless });
    const facts: Facts = {};
    const parameters: PhaseJudgement<StateLabel>[] = [];
    for (const p of TRACKED_PARAMETERS) {
      const marker = markerOf(phases[0]!.steps, p.key);
      if (marker === '') {
        // Not set in this record: the server does not report it, or the log predates it.
        facts[`${p.name}.outcome`] = null;
        facts[`${p.name}.notObserved`] =
          p.reportedFrom !== undefined && discovery.serverVersionNum < p.reportedFrom
            ? `the server (${discovery.serverVersion || 'this version'}) does not report ${p.name}, so no pooler can track it`
            : 'not in this record';
        continue;
      }
      const unmet = unmetPrecondition(p, phases[0]!.steps);
      if (unmet !== null) {
        facts[`${p.name}.outcome`] = null;
        facts[`${p.name}.notApplicable`] = unmet;
        continue;
      }
      const byPhase = phases.map((ph) => ({
        phase: ph.phase,
        judgement: judgeObserver(p, marker, ph.steps, discovery, ph.phase === NAMELESS),
      }));
      const judgement = byPhase.length === 1 ? byPhase[0]!.judgement : worstOf(byPhase, STATE_WORST_FIRST);
      facts[`${p.name}.outcome`] = judgement.outcome;
      if (judgement.outcome === 'leaked' && p.leakAdvice) facts[`${p.name}.advice`] = p.leakAdvice;
      for (const { phase, judgement: j } of byPhase) {
        facts[`${p.name}.${phase}`] = j.outcome;
        facts[`${p.name}.${phase}.seen`] = j.facts['seen'] ?? null;
        facts[`${p.name}.${phase}.kept`] = j.facts['aKeptState'] ?? null;
        // What does not depend on the parameter (backends, landings), once per phase.
        if (parameters.length === 0)
          for (const [k, v] of Object.entries(j.facts))
            if (!PER_PARAMETER_FACTS.has(k) && k !== 'seen') facts[`${phase}.${k}`] = v;
      }
      parameters.push({ phase: p.name, judgement });
    }
    return overall(parameters, facts);
  },
});

/**
 * Why `p` does not apply to this login, as A's first step read it before its SETs (a login
 * that is not a superuser may not switch session_authorization), or null where it applies or
 * the record has no reading (recorded before the parameter was observed: the marker decides).
 */
function unmetPrecondition(p: TrackedParameterSpec, steps: readonly StepRecord[]): string | null {
  if (!p.precondition) return null;
  const reading = valueOf(stepOf(steps, LANDING_TAGS.create), p.precondition.column);
  if (typeof reading !== 'string') return null;
  return p.precondition.holds(reading) ? null : `${p.precondition.otherwise} (${p.precondition.column} = ${reading})`;
}

/**
 * The check's outcome from the parameters' (INTERPRETING.md): the worst one, ranked as
 * STATE_WORST_FIRST; while a parameter is inconclusive the check is too, unless another one already
 * leaked (nothing ranks worse). A record where every parameter was refused is `rejected`.
 */
function overall(parameters: PhaseJudgement<StateLabel>[], facts: Facts): Judgement<StateLabel> {
  if (parameters.length === 0) return { outcome: null, facts, reason: 'no parameter was observed in this record' };
  const combined = worstOf(parameters, STATE_WORST_FIRST);
  const list = parameters.map((p) => `${p.phase}: ${p.judgement.outcome ?? 'inconclusive'}`).join(', ');
  const decisive =
    parameters.find((p) => p.judgement.outcome === combined.outcome && combined.outcome !== null) ??
    parameters.find((p) => p.judgement.outcome === null);
  const why = decisive ? `; ${decisive.phase}: ${decisive.judgement.reason}` : '';
  const reason = `${list}${why}`;
  return combined.outcome === null ? { outcome: null, facts, reason } : { outcome: combined.outcome, facts, reason };
}

/**
 * One parameter in one phase: did the observer on A's old backend see A's value, and did A
 * keep it? An observer that sends no name shows what the server connection had last, so when
 * it shows neither A's name nor the server's default, a third client (with a name of its own)
 * used that backend in between, under other traffic: nothing can be said of what a client
 * without values is shown of A's then, unless it already saw A's.
 */
function judgeObserver(
  p: TrackedParameterSpec,
  marker: string,
  steps: readonly StepRecord[],
  discovery: Discovery,
  nameless: boolean,
): Judgement<StateLabel> {
  const read = (step: StepRecord, prefix: string): boolean | null => {
    const v = valueOf(step, `${prefix}_${p.column}`);
    return typeof v === 'string' ? shows(p, v, marker) : null;
  };
  const judgement = judgeState(steps, discovery, {
    seenByOther: (take) => read(take, 'seen'),
    keptByA: (readback) => read(readback, 'mine'),
    show: (step) => `${p.name} = ${String(valueOf(step, `seen_${p.column}`) ?? valueOf(step, `mine_${p.column}`))}`,
  });
  // What the observer on A's old backend was shown: the value itself.
  const observer = steps.find(
    (s) =>
      s.tag === LANDING_TAGS.observe &&
      s.pid !== null &&
      s.pid === stepOf(steps, LANDING_TAGS.create)?.pid &&
      !s.timedOut,
  );
  const seen = (column: string): string | null => {
    const v = valueOf(observer, column);
    return typeof v === 'string' ? v : null;
  };
  const facts = { ...judgement.facts, seen: seen(`seen_${p.column}`) };
  const app = seen('seen_app');
  const tag = markerOf(steps, 'application_name');
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
      reason: `${observer?.session ?? 'the observer'} on A's old backend was shown application_name = ${app}, another client's: a third client used that backend in between, so what a client without values is shown of A's is not known`,
    };
  }
  return { ...judgement, facts };
}
