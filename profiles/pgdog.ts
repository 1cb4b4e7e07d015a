import type { CatalogueProfile } from './catalogue-profile.js';
import { NAMELESS_NOTE } from './basis.js';
import { PG_DOCS } from './postgres-docs.js';

const DOCS = 'pgdogdev/docs@168c0370:docs/features/connection-pooler/';
const TX = `${DOCS}transaction-mode.md`;
const RECOVERY = `${DOCS}connection-recovery.md#abandoned-transactions`;
const PREPARED = 'pgdogdev/docs@9091aa71:docs/features/connection-pooler/prepared-statements.md';

/**
 * PgDog in transaction mode (its default), one unsharded database, default settings. PgDog
 * parses SET and replays each client's parameters on whichever server it gets. No expectation
 * for `custom-guc-leak` (only SET is parsed; a set_config() call is not), `role-leak`,
 * `temp-table`, `with-hold`, `lastval`, `reset-on-disconnect` (not documented),
 * `sql-prepare` (rewritten only with prepared_statements = "full"; what happens otherwise is not
 * documented), `advisory-session` (lock detection is off by default in an unsharded deployment,
 * and what the server connection's cleanup then does is not documented), `notify/listen`
 * (pub/sub is off by default), `cancel/routing` and `capacity/queueing` (general.md gives
 * checkout_timeout as "300 (5s)", so the bound the check would meet is unclear).
 */
export const pgdogTransaction: CatalogueProfile = {
  name: 'pgdog-transaction',
  title: 'PgDog, pooler_mode = transaction (unsharded, default settings)',
  pooler: 'PgDog',
  mode: 'transaction',
  versions:
    '0.1.x with query_parser default, prepared_statements = "extended", connection_recovery = "recover" (defaults)',
  ref: TX,
  expect: {
    'session/set-leak': {
      outcome: 'tracked',
      ref: `${TX}#session-state (SET is parsed and the client's parameters are re-applied before each transaction)`,
      basis: 'documented',
    },
    'session/search-path-leak': { outcome: 'tracked', ref: `${TX}#parsing-set-commands`, basis: 'documented' },
    'session/tracked-parameter': {
      outcome: 'tracked',
      ref: `${TX}#session-state`,
      note: NAMELESS_NOTE,
      basis: 'documented',
    },
    'session/set-local': {
      outcome: 'scoped',
      ref: `${TX}#how-it-works (a transaction runs on one server connection); ${PG_DOCS.setLocal}`,
      basis: 'documented',
    },
    'prepared/protocol-named': {
      outcome: 'works',
      ref: `${PREPARED}#how-it-works (renamed, globally cached, re-prepared per server)`,
      basis: 'documented',
    },
    'locks/advisory-xact': {
      outcome: 'exclusive',
      ref: `${TX}#performance (use transaction-level advisory locks); ${PG_DOCS.advisoryLocks}`,
      basis: 'documented',
    },
    'transactions/abandoned': {
      outcome: 'rolled-back',
      ref: `${RECOVERY} (ROLLBACK before the connection is reused; connection_recovery = recover by default)`,
      basis: 'documented',
    },
    'capacity/multiplexing': { outcome: 'multiplexed', ref: `${TX}#how-it-works`, basis: 'documented' },
    'statement/transaction-block': { outcome: 'allowed', ref: `${TX}#how-it-works`, basis: 'documented' },
  },
};
