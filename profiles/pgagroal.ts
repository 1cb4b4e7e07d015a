import type { CatalogueProfile, Expectations, ExpectationOf } from './catalogue-profile.js';
import { documented, everyParameter, observed } from './basis.js';

const PIPELINES = 'agroal/pgagroal@1.6.0:doc/PIPELINES.md';
const TX = `${PIPELINES}#transaction`;
const SESSION = `${PIPELINES}#session (supports all features of pgagroal)`;
const NO_DISCARD = `${TX} (pgagroal does not issue a DISCARD ALL statement when using the transaction pipeline)`;

/** Where the fixtures ran these profiles (test/wire/pgagroal-findings.test.ts runs the transaction one). */
const ON_160 = (fixture: string): string =>
  `pgagroal 1.6.0 built from the release tarball (tag 1.6.0), fixture ${fixture} with max_connections 2, PostgreSQL 15`;

/**
 * pgagroal 1.6 in its transaction pipeline. doc/PIPELINES.md says a server connection goes back
 * to the pool at the end of every transaction, with no reset, and names SET, LISTEN, WITH HOLD
 * cursors and PREPARE as unsupported; the fixture shows exactly that, and more of the same (every
 * session-level state stays on the server connection for the next client). Observed, except:
 * - `cancel/routing` has no expectation: the cancel key a client gets is that of the server
 *   connection it authenticated on, not of the one its query runs on, so the outcome depends on
 *   which backend that query got (both `routed` and `misrouted` were observed on the fixture).
 * - `capacity/queueing` and `capacity/multiplexing` are inconclusive there: pgagroal refuses a
 *   login beyond its pool with a 53300 ErrorResponse framed one byte short, on a client the
 *   conclusion rests on. multiplexing keeps the documented expectation.
 */
export const pgagroalTransaction: CatalogueProfile = {
  name: 'pgagroal-transaction',
  title: 'pgagroal 1.6, pipeline = transaction (users vault, track_prepared_statements off)',
  pooler: 'pgagroal',
  mode: 'transaction',
  versions: '1.6.0 observed (fixture pgagroal-transaction)',
  ref: PIPELINES,
  expect: {
    ...observed(ON_160('pgagroal-transaction'), {
      'session/set-leak': { outcome: 'leaked', ref: `${TX} (SET / RESET: a session based feature); ${NO_DISCARD}` },
      'session/lock-timeout-leak': { outcome: 'leaked', ref: NO_DISCARD },
      'session/search-path-leak': { outcome: 'leaked', ref: NO_DISCARD },
      'session/custom-guc-leak': { outcome: 'leaked', ref: NO_DISCARD },
      'session/role-leak': { outcome: 'leaked', ref: NO_DISCARD },
      'session/tracked-parameter': {
        outcome: 'leaked',
        ref: `${TX}; ${NO_DISCARD}`,
        note: 'pgagroal tracks no parameter: every one a client SETs stays on the server connection for the next client (observed parameter by parameter).',
        parameters: everyParameter('leaked'),
      },
      'session/set-local': { outcome: 'scoped', ref: TX },
      'session/reset-on-disconnect': { outcome: 'leaked', ref: NO_DISCARD },
      'session/discard-all': {
        outcome: 'missed',
        ref: `${TX} (a client's DISCARD ALL runs on whichever server connection its transaction gets)`,
      },
      'temp/temp-table': { outcome: 'leaked', ref: NO_DISCARD },
      'temp/on-commit-drop': { outcome: 'works', ref: TX },
      'locks/advisory-session': { outcome: 'shared', ref: NO_DISCARD },
      'locks/advisory-xact': { outcome: 'exclusive', ref: TX },
      'notify/listen': { outcome: 'misrouted', ref: `${TX} (LISTEN / NOTIFY: a session based feature)` },
      'prepared/sql-prepare': {
        outcome: 'leaked',
        ref: `${TX} (PREPARE / DEALLOCATE: tied to the connection; DEALLOCATE ALL only with track_prepared_statements on, off by default)`,
      },
      'prepared/protocol-named': {
        outcome: 'failed',
        ref: `${TX} (track_prepared_statements off: a named statement stays on the server connection it was prepared on)`,
      },
      'cursors/with-hold': {
        outcome: 'leaked',
        ref: `${TX} (WITH HOLD CURSOR: a session based feature); ${NO_DISCARD}`,
      },
      'sequences/lastval': { outcome: 'leaked', ref: NO_DISCARD },
      'statement/transaction-block': { outcome: 'allowed', ref: TX },
    }),
    ...documented({
      'transactions/abandoned': {
        outcome: 'rolled-back',
        ref: 'agroal/pgagroal@1.6.0:src/libpgagroal/pipeline_transaction.c (transaction_stop: ROLLBACK when the client leaves in a transaction)',
        note: 'Skipped by default against pgagroal in transaction mode, a known wedge (INTERPRETING.md 5b); with --run-wedging the 1.6.0 fixture gives rolled-back, and may be left with spinning workers.',
      },
      'capacity/multiplexing': {
        outcome: 'multiplexed',
        ref: `${TX} (releases the connection back to the pool after each transaction)`,
        note: 'Inconclusive on the 1.6.0 fixture: pgagroal refuses a login beyond its pool with a malformed ErrorResponse (53300, declared one byte short), on a client the check rests on.',
      },
    }),
  } satisfies Expectations,
};

/**
 * The session pipeline: a client keeps its server connection; DISCARD ALL when it leaves.
 * Observed on the fixture in full runs (docs/compatibility.md has the column, and
 * test/catalogue/compatibility.test.ts re-runs it in its rotation); test/wire/pgagroal-findings.test.ts
 * re-runs the quick checks with this profile. session/reset-on-disconnect stays documented: it is
 * inconclusive there in every run so far (pgagroal opens a server connection beyond the pool
 * discovery counted while the check runs, so the check's count of backends proves nothing).
 */
export const pgagroalSession: CatalogueProfile = {
  name: 'pgagroal-session',
  title: 'pgagroal 1.6, pipeline = session',
  pooler: 'pgagroal',
  mode: 'session',
  versions: '1.6.0 observed (fixture pgagroal-session)',
  ref: PIPELINES,
  expect: {
    ...observed(ON_160('pgagroal-session'), {
      'session/set-leak': { outcome: 'session', ref: SESSION },
      'session/lock-timeout-leak': { outcome: 'session', ref: SESSION },
      'session/search-path-leak': { outcome: 'session', ref: SESSION },
      'session/role-leak': { outcome: 'session', ref: SESSION },
      'session/set-local': { outcome: 'scoped', ref: SESSION },
      'session/discard-all': { outcome: 'reset', ref: SESSION },
      'temp/temp-table': { outcome: 'session', ref: SESSION },
      'temp/on-commit-drop': { outcome: 'works', ref: SESSION },
      'locks/advisory-session': { outcome: 'exclusive', ref: SESSION },
      'locks/advisory-xact': { outcome: 'exclusive', ref: SESSION },
      'notify/listen': { outcome: 'delivered', ref: SESSION },
      'prepared/sql-prepare': { outcome: 'session', ref: SESSION },
      'prepared/protocol-named': { outcome: 'works', ref: SESSION },
      'cursors/with-hold': { outcome: 'session', ref: SESSION },
      'sequences/lastval': { outcome: 'session', ref: SESSION },
      'statement/transaction-block': { outcome: 'allowed', ref: SESSION },
      'cancel/routing': { outcome: 'routed', ref: SESSION },
      'transactions/abandoned': { outcome: 'rolled-back', ref: SESSION },
      'capacity/multiplexing': { outcome: 'one-per-client', ref: SESSION },
    }),
    ...documented({
      'session/reset-on-disconnect': {
        outcome: 'reset',
        ref: `${PIPELINES}#session (a DISCARD ALL query is run after each client session)`,
      },
    }),
  } satisfies Expectations,
};
