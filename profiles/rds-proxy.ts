import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

// The AWS guide's own source (the rendered page is unversioned): "Avoiding pinning".
const PINNING = 'awsdocs/amazon-rds-user-guide@8f04457f:doc_source/rds-proxy-managing.md#rds-proxy-pinning';
/** The PostgreSQL list of conditions that pin a client to its database connection. */
const PG_PINS = `${PINNING}#rds-proxy-pinning.postgres`;
const ALL_PINS = `${PINNING}#rds-proxy-pinning.all`;
const PINNED_NOTE =
  'The proxy pins the client to its database connection, so the feature keeps working at the cost of multiplexing.';

/**
 * AWS RDS Proxy for PostgreSQL. There is no pooling mode: the proxy multiplexes at transaction
 * boundaries until it sees session state, then pins the client to its database connection until
 * the client disconnects ("for PostgreSQL setting a variable leads to session pinning"; session
 * pinning filters do not apply to PostgreSQL). The state checks therefore expect `pinned`; the
 * checks with other labels expect what pinning makes them observe. No expectation for
 * `reset-on-disconnect`, `abandoned`, `cancel/routing` (not documented), `on-commit-drop`, and
 * the capacity checks: the pool is a share of max_connections (MaxConnectionsPercent), not a size
 * the checks can exceed or compare with; clients that do exceed it wait up to
 * ConnectionBorrowTimeout (120 s by default).
 */
export const rdsProxy: CatalogueProfile = {
  name: 'rds-proxy',
  title: 'AWS RDS Proxy for PostgreSQL (pins on session state)',
  pooler: 'AWS RDS Proxy',
  mode: 'transaction multiplexing with pinning',
  versions: 'current (documentation as of 2023 to 2025)',
  ref: PINNING,
  expect: {
    'session/set-leak': { outcome: 'pinned', ref: `${PG_PINS} (Using SET commands)`, basis: 'documented' },
    'session/search-path-leak': { outcome: 'pinned', ref: `${PG_PINS} (Using SET commands)`, basis: 'documented' },
    'session/custom-guc-leak': {
      outcome: 'pinned',
      ref: `${PG_PINS} (Using SET commands; setting parameters)`,
      basis: 'documented',
    },
    'session/role-leak': { outcome: 'pinned', ref: `${PG_PINS} (Using SET commands)`, basis: 'documented' },
    'session/tracked-parameter': {
      outcome: 'pinned',
      ref: `${PG_PINS} (Using SET commands; no variables are tracked for PostgreSQL)`,
      basis: 'documented',
    },
    'session/set-local': {
      outcome: 'scoped',
      ref: `${PG_PINS} (SET pins); ${PG_DOCS.setLocal}`,
      note: PINNED_NOTE,
      basis: 'documented',
    },
    'temp/temp-table': {
      outcome: 'pinned',
      ref: `${PG_PINS} (Creating temporary sequences, tables, or views)`,
      basis: 'documented',
    },
    'prepared/sql-prepare': {
      outcome: 'pinned',
      ref: `${ALL_PINS} (prepared statements, SQL text or binary protocol)`,
      basis: 'documented',
    },
    'prepared/protocol-named': {
      outcome: 'works',
      ref: `${ALL_PINS} (prepared statements pin); ${PG_PINS} (extended query protocol)`,
      note: PINNED_NOTE,
      basis: 'documented',
    },
    'cursors/with-hold': { outcome: 'pinned', ref: `${PG_PINS} (Declaring cursors)`, basis: 'documented' },
    'sequences/lastval': {
      outcome: 'pinned',
      ref: `${PG_PINS} (Manipulating sequences using functions such as nextval and setval)`,
      basis: 'documented',
    },
    'locks/advisory-session': {
      outcome: 'exclusive',
      ref: `${PG_PINS} (pg_advisory_lock pins)`,
      note: PINNED_NOTE,
      basis: 'documented',
    },
    'locks/advisory-xact': {
      outcome: 'exclusive',
      ref: `${PG_PINS}; ${PG_DOCS.advisoryLocks}`,
      note: 'Whether pg_advisory_xact_lock pins is not settled in the docs; either way the lock lives in one transaction on one connection.',
      basis: 'documented',
    },
    'notify/listen': {
      outcome: 'delivered',
      ref: `${PG_PINS} (Listening on a notification channel)`,
      note: PINNED_NOTE,
      basis: 'documented',
    },
    'statement/transaction-block': {
      outcome: 'allowed',
      ref: `${PINNING} (transactions multiplex between database connections)`,
      basis: 'documented',
    },
  },
};
