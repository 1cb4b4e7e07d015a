/**
 * What each real fixture does, check by check, as the pooler's documentation and a hand
 * experiment (psql sessions doing the same steps) say. Kept apart from the profiles on purpose:
 * the catalogue test compares the tool with this record and with the profiles, so a wrong
 * profile and a wrong judge cannot hide each other. `null`: the check does not conclude here
 * (capacity/burst is fixture-only and skipped through --target).
 */
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

const ids = [
  'session/set-leak',
  'session/search-path-leak',
  'session/custom-guc-leak',
  'session/role-leak',
  'session/tracked-parameter',
  'session/set-local',
  'session/reset-on-disconnect',
  'session/discard-all',
  'temp/temp-table',
  'temp/on-commit-drop',
  'prepared/sql-prepare',
  'prepared/protocol-named',
  'cursors/with-hold',
  'sequences/lastval',
  'locks/advisory-session',
  'locks/advisory-xact',
  'notify/listen',
  'transactions/abandoned',
  'cancel/routing',
  'capacity/queueing',
  'capacity/multiplexing',
  'capacity/burst',
  'statement/transaction-block',
  'session/lock-timeout-leak',
] as const;

function row(...outcomes: Array<string | null>): Outcomes {
  if (outcomes.length !== ids.length) throw new Error(`expected ${ids.length} outcomes, got ${outcomes.length}`);
  // auth/stale-password is fixture-only, so skipped through --target like capacity/burst.
  return { ...Object.fromEntries(ids.map((id, i) => [id, outcomes[i]!])), 'auth/stale-password': null };
}

export const EXPECTED: Record<string, Outcomes> = {
  //                  set      search   guc      role     tracked  local     reset-dc  discard  temp     commitdrop  prepare  proto     hold     lastval  adv-sess     adv-xact     listen       abandoned      cancel     queueing     multiplex         burst transaction-block lock-timeout
  direct: row(
    'session',
    'session',
    'session',
    'session',
    'session',
    'scoped',
    'reset',
    'reset',
    'session',
    'works',
    'session',
    'works',
    'session',
    'session',
    'exclusive',
    'exclusive',
    'delivered',
    'rolled-back',
    'routed',
    'unlimited',
    'one-per-client',
    null,
    'allowed',
    'session',
  ),
  // tracked: `leaked`, to the observer that sends no application_name (PgBouncer applies none for it).
  'pgbouncer-transaction': row(
    'leaked',
    'leaked',
    'leaked',
    'leaked',
    'leaked',
    'scoped',
    'leaked',
    'missed',
    'leaked',
    'works',
    'leaked',
    'failed',
    'leaked',
    'leaked',
    'shared',
    'exclusive',
    'misrouted',
    'rolled-back',
    'routed',
    'queued',
    'multiplexed',
    null,
    'allowed',
    'leaked',
  ),
  'pgbouncer-session': row(
    'session',
    'session',
    'session',
    'session',
    'session',
    'scoped',
    'reset',
    'reset',
    'session',
    'works',
    'session',
    'works',
    'session',
    'session',
    'exclusive',
    'exclusive',
    'delivered',
    'rolled-back',
    'routed',
    'queued',
    'one-per-client',
    null,
    'allowed',
    'session',
  ),
  'pgbouncer-statement': row(
    'leaked',
    'leaked',
    'leaked',
    'leaked',
    'leaked',
    'rejected',
    'leaked',
    'missed',
    'leaked',
    'rejected',
    'leaked',
    'failed',
    'leaked',
    'leaked',
    'shared',
    'exclusive',
    'misrouted',
    'rejected',
    'routed',
    'queued',
    'multiplexed',
    null,
    'rejected',
    'leaked',
  ),
  pgpool: row(
    'session',
    'session',
    'session',
    'session',
    'session',
    'scoped',
    'reset',
    'reset',
    'session',
    'works',
    'session',
    'works',
    'session',
    'session',
    'exclusive',
    'exclusive',
    'delivered',
    'rolled-back',
    'ignored',
    'queued',
    'one-per-client',
    null,
    'allowed',
    'session',
  ),
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
