/**
 * What each real fixture does, check by check. The five fixtures run the built-in profiles of
 * the same names, whose expectations are observed on them (profiles/*.ts says so, with the
 * reference), so the expected outcome of a check on a fixture is its profile's: written once,
 * there. What is left here is what a profile cannot say:
 * - checks that do not conclude through --target (`requires: ['fixture']`, such as
 *   capacity/burst and auth/stale-password, are skipped there): `null`;
 * - the measured checks (MEASURED), whose outcome is a timing, not compared;
 * - BY_HAND: outcomes of a hand experiment (psql sessions doing the same steps) on the fixture
 *   that the pooler's profile leaves out on purpose because they describe the fixture's
 *   configuration rather than the pooler.
 * A check that the fixture's profile does not state, and that is not covered above, is
 * `undefined` here: the catalogue test then fails naming it, until its profile states it.
 */
import { findProfile } from '../../profiles/index.js';
import { CATALOGUE } from '../../suites/catalogue.js';

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
export const FIXTURE_PROFILES = [
  'direct',
  'pgbouncer-transaction',
  'pgbouncer-session',
  'pgbouncer-statement',
  'pgpool',
] as const;

/**
 * A hand experiment's outcomes that no profile states. pgpool-II documents nothing about where
 * a cancel request goes (profiles/pgpool.ts has no cancel/routing expectation); on the fixture,
 * with its two children both busy, the cancel reaches no running query: `ignored`.
 */
const BY_HAND: Partial<Record<(typeof FIXTURE_PROFILES)[number], Outcomes>> = {
  pgpool: { 'cancel/routing': 'ignored' },
};

function expectedOn(fixture: (typeof FIXTURE_PROFILES)[number]): Outcomes {
  const stated = findProfile(fixture).expect;
  const hand = BY_HAND[fixture] ?? {};
  return Object.fromEntries(
    CATALOGUE.filter((c) => !(MEASURED as readonly string[]).includes(c.id)).map((c) => {
      const requires = ('requires' in c ? c.requires : undefined) as readonly string[] | undefined;
      if (requires?.includes('fixture')) return [c.id, null];
      if (Object.hasOwn(hand, c.id)) return [c.id, hand[c.id]!];
      return [c.id, stated[c.id]?.outcome as string];
    }),
  );
}

export const EXPECTED: Record<string, Outcomes> = Object.fromEntries(FIXTURE_PROFILES.map((f) => [f, expectedOn(f)]));

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
