import { everyParameter } from './basis.js';
import { observedOnFixture, type Decisions } from './observed-on-fixture.js';
import type { CatalogueProfile, ExpectationOf } from './catalogue-profile.js';
import { PGB } from './pgbouncer-docs.js';
import { PG_DOCS } from './postgres-docs.js';

/**
 * PgBouncer 1.18 as Debian 12 ships it, in its three pooling modes. These are the profiles the
 * project's fixtures run, so their first seven expectations were also checked by hand against a
 * real 1.18; the newer releases are in pgbouncer-versions.ts. The outcomes are each fixture's
 * recorded ones (observed-on-fixture.ts): what is written here is why, with the reference.
 */

/** Where the fixtures run these profiles: the catalogue tests assert every expectation below there. */
const ON_118 = 'PgBouncer 1.18 (Debian 12), fixtures pgbouncer-transaction, -session and -statement with a pool of 2';

/** In transaction and statement pooling nothing resets a server connection between clients. */
const NO_RESET = `${PGB.resetQuery} (not used in transaction pooling) and #server_reset_query_always (default 0)`;
const CHANGELOG_118 = `${PGB.changelog}#pgbouncer-118x (1.18.0 fixes a race in which one client's cancel request canceled another client's query, #717)`;
const CHANGELOG_116 = `${PGB.changelog}#pgbouncer-116x (1.16.0: a client that disconnects with a transaction open leaves an unclean server, which is closed: "client disconnect while server was not ready")`;

/**
 * Per parameter, in 1.18's multiplexing modes (session/tracked-parameter): its fixed list
 * replays five parameters for a client that has a value; a client without an application_name
 * is shown the last one; IntervalStyle joined the list in 1.20.
 */
const TRACKED_118: Record<string, 'tracked' | 'leaked'> = {
  application_name: 'leaked',
  timezone: 'tracked',
  datestyle: 'tracked',
  intervalstyle: 'leaked',
  client_encoding: 'tracked',
  standard_conforming_strings: 'tracked',
  // Not in the fixed list, and no track_extra_parameters before 1.20 (observed on 1.18).
  default_transaction_read_only: 'leaked',
};

/**
 * From 1.20 IntervalStyle is tracked too (the default of track_extra_parameters); the rest as
 * 1.18. search_path is left out: it is tracked only when listed and reported (PostgreSQL 18),
 * and the audit joins SET search_path with session/search-path-leak.
 */
export const TRACKED_PARAMETER_120: ExpectationOf<'session/tracked-parameter'> = {
  outcome: 'leaked',
  ref: `${PGB.changelog}#pgbouncer-120x (track_extra_parameters, default IntervalStyle); ${PGB.features} (startup parameters are tracked per client)`,
  note: "Documented for values the client has; a client that sent no application_name at startup is shown the previous client's, as observed on 1.18 (leaked). Not observed by pooltest on this version.",
  parameters: { ...TRACKED_118, intervalstyle: 'tracked' },
};

/** What every multiplexing mode of 1.18 shares: no reset, a fixed list of tracked parameters. */
const MULTIPLEXED: Decisions = {
  'session/set-leak': { ref: `${PGB.features} (SET/RESET: Never); ${PGB.resetQuery}` },
  'session/lock-timeout-leak': { ref: `${PGB.features} (SET/RESET: Never); ${PGB.resetQuery}` },
  'session/search-path-leak': {
    ref: `${PGB.features} (SET/RESET: Never); ${NO_RESET}`,
    note: '1.18 tracks only client_encoding, DateStyle, TimeZone, standard_conforming_strings and application_name (changelog 1.20.0); search_path is not among them.',
  },
  'session/custom-guc-leak': { ref: `${PGB.features} (SET/RESET: Never); ${NO_RESET}` },
  'session/role-leak': {
    ref: `${PGB.features} (SET/RESET: Never; role is not a tracked parameter); ${NO_RESET}`,
  },
  'session/tracked-parameter': {
    ref: `${PGB.features} (startup parameters are tracked per client); ${PGB.changelog}#pgbouncer-120x (before 1.20: client_encoding, DateStyle, TimeZone, standard_conforming_strings, application_name)`,
    note: "Tracked for a client that has a value: TimeZone, DateStyle, client_encoding and standard_conforming_strings follow their client whichever observer looks. application_name: a client that sent none at startup, as node-postgres by default, gets no value applied and is shown the previous client's (leaked). IntervalStyle is tracked only from 1.20 (track_extra_parameters), so on 1.18 it stays on the server connection (leaked), as does default_transaction_read_only (the next client's writes fail with SQLSTATE 25006). Observed on 1.18 with both observers.",
    parameters: TRACKED_118,
  },
  'session/reset-on-disconnect': { ref: NO_RESET },
  'session/discard-all': {
    ref: `${PGB.features} (SET/RESET: Never): a client's DISCARD ALL runs on whichever server connection its transaction gets, not the one holding its earlier state; ${NO_RESET}`,
  },
  'temp/temp-table': { ref: `${PGB.features} (PRESERVE/DELETE ROWS temp tables: Never)` },
  'prepared/sql-prepare': { ref: `${PGB.features} (PREPARE / DEALLOCATE: Never)` },
  'prepared/protocol-named': {
    ref: `${PGB.featuresBefore121} (Protocol-level prepared plans: No in transaction pooling)`,
    note: 'max_prepared_statements arrived in 1.21: a named statement exists only on the server connection it was parsed on.',
  },
  'cursors/with-hold': { ref: `${PGB.features} (WITH HOLD CURSOR: Never); ${NO_RESET}` },
  'sequences/lastval': {
    ref: `${NO_RESET}; ${PG_DOCS.sequences}`,
    note: 'Sequences are not in the feature map: this follows from the documented absence of any reset in transaction pooling.',
  },
  'locks/advisory-session': { ref: `${PGB.features} (Session-level advisory locks: Never)` },
  'notify/listen': { ref: `${PGB.features} (LISTEN: Never)` },
  'cancel/routing': { ref: CHANGELOG_118 },
  'capacity/multiplexing': {
    ref: `${PGB.features} (transaction pooling: a server connection is assigned only during a transaction); ${PGB.config}#default_pool_size`,
  },
};

/**
 * Transaction pooling. Untracked session state stays on the server connection for the next
 * client; tracked parameters are replayed per client.
 */
export const pgbouncerTransaction: CatalogueProfile = {
  name: 'pgbouncer-transaction',
  title: 'PgBouncer 1.18 (Debian 12), pool_mode = transaction',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.18 (server_reset_query_always = 0, no max_prepared_statements); newer releases: pgbouncer-1.21-transaction and later',
  ref: PGB.features,
  expect: observedOnFixture(
    { fixture: 'pgbouncer-transaction', on: ON_118, ref: PGB.features },
    {
      ...MULTIPLEXED,
      'session/set-local': {
        ref: `${PGB.features} (SET LOCAL is transaction-scoped; not listed as a restriction)`,
      },
      'temp/on-commit-drop': { ref: `${PGB.features} (ON COMMIT DROP temp tables: Yes)` },
      'locks/advisory-xact': {
        ref: `${PGB.features} (a server connection is held for the whole transaction); ${PG_DOCS.advisoryLocks}`,
        note: 'Transaction-level locks are not in the feature map; they end with the transaction that holds the server.',
      },
      'transactions/abandoned': { ref: CHANGELOG_116 },
      'capacity/queueing': { ref: `${PGB.queryWait} (clients wait for a server, 120 s by default)` },
      'statement/transaction-block': { ref: PGB.poolMode },
    },
  ),
};

/** Session pooling: a client owns its server connection until it disconnects; DISCARD ALL after. */
export const pgbouncerSession: CatalogueProfile = {
  name: 'pgbouncer-session',
  title: 'PgBouncer 1.18 (Debian 12), pool_mode = session',
  pooler: 'PgBouncer',
  mode: 'session',
  versions: '1.18',
  ref: PGB.features,
  expect: observedOnFixture(
    { fixture: 'pgbouncer-session', on: ON_118, ref: PGB.features },
    {
      'session/set-leak': { ref: `${PGB.features} (SET/RESET: Yes in session pooling)` },
      'session/lock-timeout-leak': { ref: `${PGB.features} (SET/RESET: Yes in session pooling)` },
      'session/search-path-leak': { ref: `${PGB.features} (SET/RESET: Yes in session pooling)` },
      'session/custom-guc-leak': { ref: `${PGB.features} (SET/RESET: Yes in session pooling)` },
      'session/role-leak': { ref: `${PGB.features} (SET/RESET: Yes in session pooling)` },
      'session/tracked-parameter': { ref: `${PGB.features}`, parameters: everyParameter('session') },
      'session/set-local': { ref: `${PGB.features}` },
      'session/reset-on-disconnect': {
        ref: `${PGB.resetQuery} (DISCARD ALL by default, run when a session-pooling client leaves)`,
      },
      'session/discard-all': {
        ref: `${PGB.features} (session pooling: the client keeps its server connection, so its DISCARD ALL resets its own state); ${PG_DOCS.discard}`,
      },
      'temp/temp-table': { ref: `${PGB.features} (temp tables: Yes in session pooling)` },
      'temp/on-commit-drop': { ref: `${PGB.features} (ON COMMIT DROP temp tables: Yes)` },
      'prepared/sql-prepare': { ref: `${PGB.features} (PREPARE: Yes)` },
      'prepared/protocol-named': {
        ref: `${PGB.features} (Protocol-level prepared plans: Yes in session pooling)`,
      },
      'cursors/with-hold': { ref: `${PGB.features} (WITH HOLD CURSOR: Yes in session pooling)` },
      'sequences/lastval': {
        ref: `${PGB.features} (session pooling supports all PostgreSQL features); ${PG_DOCS.sequences}`,
      },
      'locks/advisory-session': { ref: `${PGB.features} (Session-level advisory locks: Yes)` },
      'locks/advisory-xact': {
        ref: `${PGB.features} (session pooling supports all PostgreSQL features); ${PG_DOCS.advisoryLocks}`,
      },
      'notify/listen': { ref: `${PGB.features} (LISTEN: Yes)` },
      'transactions/abandoned': { ref: CHANGELOG_116 },
      'cancel/routing': { ref: CHANGELOG_118 },
      'capacity/queueing': {
        ref: `${PGB.queryWait} (clients wait for a server, 120 s by default)`,
        note: 'In session pooling a waiting client gets a server only when another client disconnects.',
      },
      'capacity/multiplexing': {
        ref: `${PGB.features} (session pooling: a server connection is assigned for the whole time the client stays connected)`,
      },
      'statement/transaction-block': { ref: PGB.poolMode },
    },
  ),
};

/**
 * prepared/close under statement pooling: the Close, the re-Parse and the Describe each go to
 * whichever server is free. Where the Describe reaches the backend that still has the first
 * text the check reads `stale`; where the re-Parse meets it, `refused` (42P05). Both seen on
 * the fixture, two runs in four each: no outcome is the pooler's promise.
 */
const STATEMENT_CLOSE_VARIES =
  'each message goes to whichever server is free: `stale` or `refused` from run to run (both seen on the fixture)';

/**
 * Statement pooling: transaction pooling in which multi-statement transactions are refused
 * (FATAL "transaction blocks not allowed in statement pooling mode" since 1.10). Checks that
 * need a multi-statement transaction and have no other way to build their situation are
 * `rejected`; the xact-lock check holds its lock in one long statement instead.
 */
export const pgbouncerStatement: CatalogueProfile = {
  name: 'pgbouncer-statement',
  title: 'PgBouncer 1.18 (Debian 12), pool_mode = statement',
  pooler: 'PgBouncer',
  mode: 'statement',
  versions: '1.18',
  ref: PGB.poolMode,
  expect: observedOnFixture(
    {
      fixture: 'pgbouncer-statement',
      on: ON_118,
      ref: PGB.poolMode,
      leaveOut: { 'prepared/close': STATEMENT_CLOSE_VARIES },
    },
    {
      ...MULTIPLEXED,
      'session/set-leak': {
        ref: `${PGB.poolMode} (statement pooling is transaction pooling without multi-statement transactions); ${PGB.features}`,
      },
      'temp/temp-table': { ref: `${PGB.poolMode}; ${PGB.features}` },
      'locks/advisory-session': { ref: `${PGB.poolMode}; ${PGB.features}` },
      'notify/listen': { ref: `${PGB.poolMode}; ${PGB.features}` },
      'prepared/sql-prepare': { ref: `${PGB.poolMode}; ${PGB.features}` },
      'session/set-local': { ref: `${PGB.poolMode} (multi-statement transactions are disallowed)` },
      'statement/transaction-block': {
        ref: `${PGB.poolMode} (transactions spanning multiple statements are disallowed)`,
      },
      'locks/advisory-xact': {
        ref: `${PGB.poolMode} (one statement runs on one server connection); ${PG_DOCS.advisoryLocks}`,
        note: 'The lock lasts as long as the single statement that takes it.',
      },
      'temp/on-commit-drop': {
        ref: `${PGB.poolMode} (the BEGIN ... COMMIT an ON COMMIT DROP table lives in is refused)`,
      },
      'transactions/abandoned': {
        ref: `${PGB.poolMode} (BEGIN cannot open a multi-statement transaction, so none can be abandoned)`,
      },
      'capacity/queueing': {
        ref: `${PGB.queryWait} (clients wait for a server, 120 s by default)`,
        note: 'Holds for work sent as one message, as the check sends it; a BEGIN ... COMMIT sent statement by statement is refused instead.',
      },
    },
  ),
};
