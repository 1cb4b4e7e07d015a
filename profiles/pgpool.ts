import { everyParameter } from './basis.js';
import { observedOnFixture } from './observed-on-fixture.js';
import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

const DOCS = 'https://www.pgpool.net/docs/43/en/html/';
const POOLING = `${DOCS}runtime-config-connection-pooling.html`;
const CACHE = `${POOLING}#GUC-CONNECTION-CACHE`;
const RESET = `${POOLING}#GUC-RESET-QUERY-LIST`;
const CHILDREN = `${DOCS}runtime-config-connection.html#GUC-NUM-INIT-CHILDREN`;

/**
 * Where a cancel request goes is not documented: on the fixture, with its two children both
 * busy, the cancel reached no running query (recorded `ignored`), which describes the fixture's
 * configuration rather than a promise of the pooler's.
 */
const CANCEL_UNDOCUMENTED =
  'pgpool-II documents nothing about where a cancel request goes; the fixture, its two children busy, ignored it';

/**
 * pgpool-II's connection cache: a child process serves one client at a time and keeps its
 * backend for the next client; `reset_query_list` (default `ABORT; DISCARD ALL`) cleans it
 * when the client leaves. Within a client session everything behaves as on a direct connection,
 * so expectations cite PostgreSQL for what a session owns. The outcomes are the fixture's recorded
 * ones (observed-on-fixture.ts); no expectation for `cancel/routing` (not documented).
 */
export const pgpool: CatalogueProfile = {
  name: 'pgpool',
  title: 'pgpool-II 4.3, connection cache (raw mode)',
  pooler: 'pgpool-II',
  mode: 'connection-cache',
  versions: '4.3',
  ref: POOLING,
  expect: observedOnFixture(
    {
      fixture: 'pgpool',
      on: 'pgpool-II 4.3 (Debian 12), fixture pgpool with 2 children',
      ref: POOLING,
      leaveOut: { 'cancel/routing': CANCEL_UNDOCUMENTED },
    },
    {
      'session/set-leak': { ref: `${CACHE}; ${RESET}` },
      'session/lock-timeout-leak': { ref: `${CACHE}; ${RESET}` },
      'session/discard-all': {
        ref: `${CACHE} (a client keeps its backend while connected); ${PG_DOCS.discard}`,
      },
      'session/search-path-leak': { ref: `${CACHE}; ${PG_DOCS.searchPath}` },
      'session/custom-guc-leak': { ref: `${CACHE}; ${PG_DOCS.customOptions}` },
      'session/role-leak': { ref: `${CACHE}; ${PG_DOCS.setRole}` },
      'session/tracked-parameter': { ref: POOLING, parameters: everyParameter('session') },
      'session/set-local': { ref: POOLING },
      'session/reset-on-disconnect': {
        ref: `${RESET} (ABORT; DISCARD ALL when the client session ends)`,
      },
      'temp/temp-table': {
        ref: `${POOLING} (reset_query_list: DISCARD ALL drops temp tables at disconnect)`,
      },
      'temp/on-commit-drop': { ref: `${CACHE}; ${PG_DOCS.onCommitDrop}` },
      'prepared/sql-prepare': { ref: POOLING },
      'prepared/protocol-named': { ref: `${CACHE}; ${PG_DOCS.namedStatements}` },
      'cursors/with-hold': { ref: `${CACHE}; ${PG_DOCS.withHold}` },
      'sequences/lastval': { ref: `${CACHE}; ${PG_DOCS.sequences}` },
      'locks/advisory-session': { ref: POOLING },
      'locks/advisory-xact': { ref: `${CACHE}; ${PG_DOCS.advisoryLocks}` },
      'notify/listen': { ref: POOLING },
      'transactions/abandoned': {
        ref: `${RESET} (it starts with ABORT, so an open transaction never reaches the next client)`,
      },
      'capacity/queueing': {
        ref: `${DOCS}managing-client-connections.html (new clients wait until a child process becomes free); ${CHILDREN}`,
        note: 'A waiting client gets a child only when another client disconnects.',
      },
      'capacity/multiplexing': {
        ref: `${CHILDREN} (a child process serves one client at a time); ${CACHE}`,
      },
      'statement/transaction-block': { ref: PG_DOCS.transactionBlock },
    },
  ),
};
