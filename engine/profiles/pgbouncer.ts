import type { Profile } from '../types.js';

const FEATURES = 'https://www.pgbouncer.org/features.html';
const CONFIG = 'https://www.pgbouncer.org/config.html';

/**
 * PgBouncer 1.18 as Debian 12 ships it. Transaction pooling: nothing is reset between
 * clients (server_reset_query runs only in session pooling since 1.7), so untracked session
 * state stays on the server connection for the next client; tracked parameters
 * (application_name, TimeZone, DateStyle...) are replayed per client.
 */
export const pgbouncerTransaction: Profile = {
  name: 'pgbouncer-transaction',
  title: 'PgBouncer 1.18, pool_mode = transaction',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions: '1.18 (server_reset_query_always = 0, max_prepared_statements absent)',
  ref: FEATURES,
  expect: {
    'session/set-leak': { outcome: 'leaked', ref: `${FEATURES} (SET/RESET: Never); ${CONFIG}#server_reset_query` },
    'temp/temp-table': { outcome: 'leaked', ref: `${FEATURES} (PRESERVE/DELETE ROWS temp tables: Never)` },
    'locks/advisory-session': { outcome: 'shared', ref: `${FEATURES} (Session-level advisory locks: Never)` },
    'notify/listen': { outcome: 'misrouted', ref: `${FEATURES} (LISTEN: Never)` },
    'prepared/sql-prepare': { outcome: 'leaked', ref: `${FEATURES} (PREPARE / DEALLOCATE: Never)` },
    'session/set-local': { outcome: 'scoped', ref: `${FEATURES} (SET LOCAL is transaction-scoped; not listed as a restriction)` },
    'session/tracked-parameter': { outcome: 'tracked', ref: `${FEATURES} (startup parameters client_encoding, DateStyle, IntervalStyle, TimeZone, standard_conforming_strings, application_name are tracked)` },
  },
};

/** Session pooling: a client owns its server connection until it disconnects; DISCARD ALL after. */
export const pgbouncerSession: Profile = {
  name: 'pgbouncer-session',
  title: 'PgBouncer 1.18, pool_mode = session',
  pooler: 'PgBouncer',
  mode: 'session',
  versions: '1.18',
  ref: FEATURES,
  expect: {
    'session/set-leak': { outcome: 'session', ref: `${FEATURES} (SET/RESET: Yes in session pooling)` },
    'temp/temp-table': { outcome: 'session', ref: `${FEATURES} (temp tables: Yes in session pooling)` },
    'locks/advisory-session': { outcome: 'exclusive', ref: `${FEATURES} (Session-level advisory locks: Yes)` },
    'notify/listen': { outcome: 'delivered', ref: `${FEATURES} (LISTEN: Yes)` },
    'prepared/sql-prepare': { outcome: 'session', ref: `${FEATURES} (PREPARE: Yes)` },
    'session/set-local': { outcome: 'scoped', ref: `${FEATURES}` },
    'session/tracked-parameter': { outcome: 'session', ref: `${FEATURES}` },
  },
};

/**
 * Statement pooling: transaction pooling in which multi-statement transactions are refused
 * (FATAL "transaction blocks not allowed in statement pooling mode" since 1.10).
 */
export const pgbouncerStatement: Profile = {
  name: 'pgbouncer-statement',
  title: 'PgBouncer 1.18, pool_mode = statement',
  pooler: 'PgBouncer',
  mode: 'statement',
  versions: '1.18',
  ref: `${CONFIG}#pool_mode`,
  expect: {
    'session/set-leak': { outcome: 'leaked', ref: `${CONFIG}#pool_mode (statement pooling is transaction pooling without multi-statement transactions); ${FEATURES}` },
    'temp/temp-table': { outcome: 'leaked', ref: `${CONFIG}#pool_mode; ${FEATURES}` },
    'locks/advisory-session': { outcome: 'shared', ref: `${CONFIG}#pool_mode; ${FEATURES}` },
    'notify/listen': { outcome: 'misrouted', ref: `${CONFIG}#pool_mode; ${FEATURES}` },
    'prepared/sql-prepare': { outcome: 'leaked', ref: `${CONFIG}#pool_mode; ${FEATURES}` },
    'session/set-local': { outcome: 'rejected', ref: `${CONFIG}#pool_mode (multi-statement transactions are disallowed)` },
    'session/tracked-parameter': { outcome: 'tracked', ref: `${FEATURES} (tracked startup parameters)` },
  },
};
