import { everyParameter, observed } from './basis.js';
import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

const DOCS = 'https://www.pgpool.net/docs/43/en/html/';
const POOLING = `${DOCS}runtime-config-connection-pooling.html`;
const CACHE = `${POOLING}#GUC-CONNECTION-CACHE`;
const RESET = `${POOLING}#GUC-RESET-QUERY-LIST`;
const CHILDREN = `${DOCS}runtime-config-connection.html#GUC-NUM-INIT-CHILDREN`;

/**
 * pgpool-II's connection cache: a child process serves one client at a time and keeps its
 * backend for the next client; `reset_query_list` (default `ABORT; DISCARD ALL`) cleans it
 * when the client leaves. Within a client session everything behaves as on a direct connection,
 * so expectations cite PostgreSQL for what a session owns. No expectation for `cancel/routing`
 * (not documented).
 */
export const pgpool: CatalogueProfile = {
  name: 'pgpool',
  title: 'pgpool-II 4.3, connection cache (raw mode)',
  pooler: 'pgpool-II',
  mode: 'connection-cache',
  versions: '4.3',
  ref: POOLING,
  expect: observed('pgpool-II 4.3 (Debian 12), fixture pgpool with 2 children', {
    'session/set-leak': { outcome: 'session', ref: `${CACHE}; ${RESET}` },
    'session/lock-timeout-leak': { outcome: 'session', ref: `${CACHE}; ${RESET}` },
    'session/discard-all': {
      outcome: 'reset',
      ref: `${CACHE} (a client keeps its backend while connected); ${PG_DOCS.discard}`,
    },
    'session/search-path-leak': { outcome: 'session', ref: `${CACHE}; ${PG_DOCS.searchPath}` },
    'session/custom-guc-leak': { outcome: 'session', ref: `${CACHE}; ${PG_DOCS.customOptions}` },
    'session/role-leak': { outcome: 'session', ref: `${CACHE}; ${PG_DOCS.setRole}` },
    'session/tracked-parameter': { outcome: 'session', ref: POOLING, parameters: everyParameter('session') },
    'session/set-local': { outcome: 'scoped', ref: POOLING },
    'session/reset-on-disconnect': {
      outcome: 'reset',
      ref: `${RESET} (ABORT; DISCARD ALL when the client session ends)`,
    },
    'temp/temp-table': {
      outcome: 'session',
      ref: `${POOLING} (reset_query_list: DISCARD ALL drops temp tables at disconnect)`,
    },
    'temp/on-commit-drop': { outcome: 'works', ref: `${CACHE}; ${PG_DOCS.onCommitDrop}` },
    'prepared/sql-prepare': { outcome: 'session', ref: POOLING },
    'prepared/protocol-named': { outcome: 'works', ref: `${CACHE}; ${PG_DOCS.namedStatements}` },
    'cursors/with-hold': { outcome: 'session', ref: `${CACHE}; ${PG_DOCS.withHold}` },
    'sequences/lastval': { outcome: 'session', ref: `${CACHE}; ${PG_DOCS.sequences}` },
    'locks/advisory-session': { outcome: 'exclusive', ref: POOLING },
    'locks/advisory-xact': { outcome: 'exclusive', ref: `${CACHE}; ${PG_DOCS.advisoryLocks}` },
    'notify/listen': { outcome: 'delivered', ref: POOLING },
    'transactions/abandoned': {
      outcome: 'rolled-back',
      ref: `${RESET} (it starts with ABORT, so an open transaction never reaches the next client)`,
    },
    'capacity/queueing': {
      outcome: 'queued',
      ref: `${DOCS}managing-client-connections.html (new clients wait until a child process becomes free); ${CHILDREN}`,
      note: 'A waiting client gets a child only when another client disconnects.',
    },
    'capacity/multiplexing': {
      outcome: 'one-per-client',
      ref: `${CHILDREN} (a child process serves one client at a time); ${CACHE}`,
    },
    'statement/transaction-block': { outcome: 'allowed', ref: PG_DOCS.transactionBlock },
  }),
};
