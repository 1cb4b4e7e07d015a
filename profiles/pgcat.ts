import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

const README = 'postgresml/pgcat@d568739d:README.md#transaction-mode';
const FEATURES = 'postgresml/pgcat@d568739d:README.md#features';
const CACHE_SIZE = 'postgresml/pgcat@bae12fca:CONFIG.md#prepared_statements_cache_size';
/**
 * Where PgCat cleans a server connection before it goes back to the pool. Not in the docs:
 * `Server::recv` marks the connection when a `SET` completes outside an explicit transaction
 * (a SET inside BEGIN ... COMMIT is deliberately not detected) or a `PREPARE` completes, and
 * `Server::checkin_cleanup` then sends `RESET ROLE;` plus `RESET ALL;` and/or `DEALLOCATE ALL;`.
 * The client loop calls it after every transaction in transaction mode.
 */
const CLEANUP =
  'postgresml/pgcat@692353c8:src/server.rs (Server::recv CommandComplete "SET"/"PREPARE"; Server::checkin_cleanup)';
const IDENTICAL = `${FEATURES} (Transaction pooling: identical to PgBouncer); ${CLEANUP} (temp tables, cursors, sequences and locks are not cleaned)`;
const SOURCE_ONLY = 'From PgCat source, not its documentation: treat as current implementation, not a promise.';

/**
 * PgCat in transaction mode (its default) with default settings. The README says prepared
 * statements, SET and advisory locks are not supported in transaction mode; the source shows
 * what happens instead. No expectation for `search-path-leak` (a server that reports
 * search_path may change the picture), `reset-on-disconnect` (depends on which state), `notify/listen`,
 * `capacity/queueing` (clients wait up to connect_timeout, 1 s by default, close to what the
 * check needs) and `on-commit-drop` (not documented).
 */
export const pgcatTransaction: CatalogueProfile = {
  name: 'pgcat-transaction',
  title: 'PgCat, pool_mode = transaction (default settings)',
  pooler: 'PgCat',
  mode: 'transaction',
  versions:
    '1.2 to 1.3 (main) with cleanup_server_connections = true and prepared_statements_cache_size = 0 (defaults)',
  ref: README,
  expect: {
    'session/set-leak': {
      outcome: 'lost',
      ref: `${README} (SET is not supported; use SET LOCAL); ${CLEANUP}`,
      note: SOURCE_ONLY,
      basis: 'source',
    },
    'session/custom-guc-leak': {
      outcome: 'leaked',
      ref: `${README}; ${CLEANUP} (only the SET command tag marks the connection: SELECT set_config(...) does not)`,
      note: `${SOURCE_ONLY} The check reports the worse of its SET and set_config phases; SET alone would be lost.`,
      basis: 'documented',
    },
    'session/role-leak': {
      outcome: 'lost',
      ref: `${README}; ${CLEANUP} (RESET ROLE)`,
      note: SOURCE_ONLY,
      basis: 'source',
    },
    'session/tracked-parameter': {
      outcome: 'tracked',
      ref: "postgresml/pgcat@692353c8:src/server.rs (Server::sync_parameters re-applies the client's tracked parameters on checkout)",
      note: `${SOURCE_ONLY} The tracked list is fixed: client_encoding, DateStyle, TimeZone, standard_conforming_strings, application_name.`,
      basis: 'source',
    },
    'session/set-local': {
      outcome: 'scoped',
      ref: `${README} (use SET LOCAL, scoped to the transaction)`,
      basis: 'documented',
    },
    'temp/temp-table': { outcome: 'leaked', ref: IDENTICAL, note: SOURCE_ONLY, basis: 'source' },
    'prepared/sql-prepare': {
      outcome: 'lost',
      ref: `${README} (prepared statements are not supported); ${CLEANUP} (DEALLOCATE ALL after a PREPARE)`,
      note: SOURCE_ONLY,
      basis: 'source',
    },
    'prepared/protocol-named': {
      outcome: 'failed',
      ref: `${CACHE_SIZE} (default 0: disabled); ${README} (prepared statements are not supported)`,
      note: 'With prepared_statements_cache_size > 0 PgCat renames and re-prepares named statements per server (source), and the outcome should become works.',
      basis: 'documented',
    },
    'cursors/with-hold': { outcome: 'leaked', ref: IDENTICAL, note: SOURCE_ONLY, basis: 'source' },
    'sequences/lastval': {
      outcome: 'leaked',
      ref: `${IDENTICAL}; ${PG_DOCS.sequences}`,
      note: SOURCE_ONLY,
      basis: 'source',
    },
    'locks/advisory-session': {
      outcome: 'shared',
      ref: `${README} (advisory locks are not supported); ${CLEANUP} (RESET ALL does not release advisory locks)`,
      basis: 'documented',
    },
    'locks/advisory-xact': {
      outcome: 'exclusive',
      ref: `${README} (use pg_advisory_xact_lock, scoped to the transaction)`,
      basis: 'documented',
    },
    'transactions/abandoned': {
      outcome: 'rolled-back',
      ref: `${FEATURES}; postgresml/pgcat@692353c8:src/server.rs (Server::checkin_cleanup sends ROLLBACK when a client leaves inside a transaction)`,
      note: SOURCE_ONLY,
      basis: 'source',
    },
    'cancel/routing': {
      outcome: 'routed',
      ref: `${FEATURES} (Query cancellation: supported in transaction and session pooling)`,
      basis: 'documented',
    },
    'capacity/multiplexing': {
      outcome: 'multiplexed',
      ref: `${README} (a client talks to one server for the duration of a single transaction)`,
      basis: 'documented',
    },
    'statement/transaction-block': { outcome: 'allowed', ref: README, basis: 'documented' },
  },
};
