/**
 * What each real fixture does, check by check: what its recorded runs showed
 * (profiles/fixture-outcomes.ts, written by the recorders from test/recorded), so the expected
 * outcome of a check on a fixture is stated once, by a run, and the fixture's profile of the same
 * name is derived from the same table (profiles/observed-on-fixture.ts). What is left here is
 * what a recording cannot say about a run through --target:
 * - checks that do not conclude through --target (`requires: ['fixture']`, such as
 *   capacity/burst and auth/stale-password, are skipped there): `null`;
 * - the measured checks (MEASURED), whose outcome is a timing, not compared.
 * A check with no recording on a fixture is `undefined` here: the catalogue test then fails
 * naming it, until it is recorded (`npm run record -- test/recorded <id>`).
 */
import { FIXTURE_OUTCOMES } from '../../profiles/fixture-outcomes.js';
import type { RecordedOutcomes } from '../../profiles/catalogue-profile.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { COMPAT_TARGETS } from '../../bench/compatibility-targets.js';

export type Outcomes = Record<string, string | null>;

/**
 * Checks whose outcome is a measurement (a latency ratio), not a behaviour: it depends on the
 * machine and its load, so it is not compared with a fixed label. The catalogue test asserts
 * instead that they concluded, with their figures in the facts.
 */
export const MEASURED = ['capacity/connect-churn'] as const;

/** `outcomes` without the measured checks, for comparison with the rows below. */
export function comparable(outcomes: Outcomes): Outcomes {
  return Object.fromEntries(Object.entries(outcomes).filter(([id]) => !(MEASURED as readonly string[]).includes(id)));
}

/** The fixtures the catalogue test runs in full, each under the profile of the same name. */
export const FIXTURE_PROFILES = Object.keys(FIXTURE_OUTCOMES) as (keyof typeof FIXTURE_OUTCOMES)[];

function expectedOn(fixture: (typeof FIXTURE_PROFILES)[number]): Outcomes {
  const recorded: RecordedOutcomes = FIXTURE_OUTCOMES[fixture];
  return Object.fromEntries(
    CATALOGUE.filter((c) => !(MEASURED as readonly string[]).includes(c.id)).map((c) => {
      const requires = ('requires' in c ? c.requires : undefined) as readonly string[] | undefined;
      if (requires?.includes('fixture')) return [c.id, null];
      return [c.id, recorded[c.id] as string | null];
    }),
  );
}

export const EXPECTED: Record<string, Outcomes> = Object.fromEntries(FIXTURE_PROFILES.map((f) => [f, expectedOn(f)]));

/**
 * What PostgreSQL 18 changes on a fixture, by check: the server version itself is what
 * protocol/negotiation observes, and 18 serves protocol 3.2 where 15 negotiates it down (the
 * recordings are 15's). A pooler in front refuses or negotiates either way.
 */
export const ON_POSTGRES_18: Record<string, Outcomes> = {
  direct: { 'protocol/negotiation': 'served' },
};

/** The variants that show labels the five main fixtures never produce. */
export const VARIANTS: Record<string, Outcomes> = {
  // server_reset_query_always = 1: DISCARD ALL after every transaction turns leaks into losses.
  'pgbouncer-transaction-reset-always': {
    'session/set-leak': 'lost',
    'session/lock-timeout-leak': 'lost',
    'session/custom-guc-leak': 'lost',
    'temp/temp-table': 'lost',
    'prepared/sql-prepare': 'lost',
    'cursors/with-hold': 'lost',
    // DISCARD ALL resets IntervalStyle, which 1.18 does not replay (the other five it does).
    'session/tracked-parameter': 'lost',
    'locks/advisory-session': 'released',
    'notify/listen': 'dropped',
    'session/reset-on-disconnect': 'reset',
  },
  // Session pooling with an empty server_reset_query: the next client inherits a departed client's state.
  'pgbouncer-session-no-reset': { 'session/reset-on-disconnect': 'leaked', 'session/set-leak': 'session' },
  // max_client_conn 4: more clients than allowed are refused.
  'pgbouncer-small-max-client': { 'capacity/queueing': 'rejected' },
};

/**
 * Cells a fixture's PostgreSQL 15 matrix column declares varying (bench/compatibility-targets.ts,
 * each with why): a run of that fixture may give any of their outcomes.
 */
export const VARYING: Record<string, Record<string, readonly string[]>> = Object.fromEntries(
  COMPAT_TARGETS.filter((t) => t.postgres === 15 && t.varies).map((t) => [
    t.stack,
    Object.fromEntries(Object.entries(t.varies!).map(([id, v]) => [id, v.outcomes])),
  ]),
);

/** `got` against `want` with the varying cells held to their declared outcomes instead. */
export function withVarying(stack: string, got: Outcomes, want: Outcomes): { got: Outcomes; want: Outcomes } {
  const varies = VARYING[stack] ?? {};
  const steady = (o: Outcomes) => Object.fromEntries(Object.entries(o).filter(([id]) => !Object.hasOwn(varies, id)));
  const off = Object.entries(varies).filter(([id, outcomes]) => id in got && !outcomes.includes(got[id]!));
  return {
    got: { ...steady(got), ...Object.fromEntries(off.map(([id]) => [id, got[id]!])) },
    want: { ...steady(want), ...Object.fromEntries(off.map(([id, outcomes]) => [id, outcomes.join(' | ')])) },
  };
}
